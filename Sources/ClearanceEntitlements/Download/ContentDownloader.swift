import Clearance
import ClearanceHTTP
import ClearanceStore
import Foundation
import HTTPTypes
import Logging

/// Fetches protected content with the edition credentials of an ``EntitlementProvider``.
///
/// - `GET` with HTTP Basic (RFC 7617) and the provider's extra headers, over HTTPS (or plain
///   HTTP to loopback, unless allowed by ``transportSecurity``).
/// - The body is streamed to a temporary file beside the destination and renamed into place
///   only when complete (and as long as `Content-Length` announced); cancellation and failure
///   remove it and leave the destination as it was. The file is `fsync`ed before the rename and
///   its directory after it: after a power loss the destination is the old file or the complete
///   new one, never an empty one.
/// - Progress comes as an `AsyncSequence` of ``DownloadProgress`` (``ContentDownload/progress``).
/// - A 401 asks the provider for fresh credentials once and retries once; a second 401 is an error.
/// - Redirects are followed here (`RedirectStep`'s rules): the credentials and the extra
///   headers stay with the original origin and never follow a redirect to another.
public struct ContentDownloader: Sendable {
    /// Where the credentials come from.
    public let provider: any EntitlementProvider
    /// The transport (it streams; AsyncHTTPClient's shared one by default).
    public let transport: any HTTPTransport
    /// Where credentials may be sent.
    public let transportSecurity: TransportSecurity
    /// How many redirects are followed (a negative value given to the initializer counts as 0).
    public let maximumRedirects: Int
    private let logger: Logger
    /// The fsync and rename calls (the system's; a test watches them).
    package let syncing: any FileSyncing

    /// A downloader taking credentials from `provider`.
    public init(
        provider: any EntitlementProvider,
        transport: any HTTPTransport = AsyncHTTPClientHTTPTransport.shared,
        transportSecurity: TransportSecurity = .strict,
        maximumRedirects: Int = 10,
        logger: Logger = Logger(label: "clearance.entitlements.download")
    ) {
        self.init(provider: provider, transport: transport, transportSecurity: transportSecurity, maximumRedirects: maximumRedirects,
                  logger: logger, syncing: SystemFileSyncing())
    }

    /// A downloader whose fsync and rename calls go through `syncing`.
    package init(
        provider: any EntitlementProvider, transport: any HTTPTransport, transportSecurity: TransportSecurity = .strict,
        maximumRedirects: Int = 10, logger: Logger = Logger(label: "clearance.entitlements.download"), syncing: any FileSyncing
    ) {
        self.provider = provider
        self.transport = transport
        self.transportSecurity = transportSecurity
        self.maximumRedirects = max(0, maximumRedirects)
        self.logger = logger
        self.syncing = syncing
    }

    /// Starts downloading `product` from `url` into `destination` and returns at once: follow
    /// ``ContentDownload/progress``, await ``ContentDownload/result()``, or ``ContentDownload/cancel()``.
    public func start(_ product: String, from url: URL, to destination: URL) -> ContentDownload {
        ContentDownload(product: product, destination: destination) { report async throws(EntitlementError) -> Int64 in
            try await download(product, from: url, to: destination, progress: report)
        }
    }

    /// Downloads `product` from `url` into `destination`; returns the bytes written once the
    /// file is in place. Cancelling the calling task cancels the download (no file is left).
    @discardableResult
    public func download(
        _ product: String, from url: URL, to destination: URL,
        progress: @Sendable (DownloadProgress) -> Void = { _ in }
    ) async throws(EntitlementError) -> Int64 {
        var credentials = try await provider.credentials(for: product)
        var refreshed = false
        while true {
            switch try await fetch(url, with: credentials, to: destination, progress: progress) {
            case .complete(let bytes):
                logger.debug("downloaded", metadata: ["product": "\(product)", "bytes": "\(bytes)"])
                return bytes
            case .unauthorized where !refreshed:
                logger.debug("401: asking for fresh credentials once", metadata: ["product": "\(product)"])
                refreshed = true
                credentials = try await provider.credentials(for: product)
            case .unauthorized(let answer):
                throw .unknown(reason: "the content server refused fresh credentials for '\(product)'", response: answer)
            }
        }
    }

    private enum Outcome {
        case complete(Int64)
        case unauthorized(HTTPErrorResponse)
    }

    /// One attempt, following redirects; the credentials travel only to the original origin.
    private func fetch(_ url: URL, with credentials: ContentCredentials, to destination: URL, progress: @Sendable (DownloadProgress) -> Void) async throws(EntitlementError) -> Outcome {
        let original = HTTPRequest(method: .get, url: url)
        var request = original
        var carriesCredentials = true
        for _ in 0...maximumRedirects {
            var outgoing = request
            if carriesCredentials {
                do {
                    try transportSecurity.check(outgoing)
                } catch {
                    throw .unknown(reason: error.message, underlying: error)
                }
                try credentials.apply(to: &outgoing)
            }
            let step = try await send(outgoing, to: destination, progress: progress)
            switch step {
            case .complete(let bytes):
                return .complete(bytes)
            case .refused(let answer):
                if answer.status == 401 && carriesCredentials { return .unauthorized(answer) }
                throw .unknown(reason: "the content server refused the request", response: answer)
            case .redirect(let response):
                guard let next = RedirectStep.next(after: response, to: request, original: original) else {
                    throw .unknown(reason: "the content server redirected without a usable Location", response: HTTPErrorResponse(response))
                }
                if carriesCredentials && !next.keepsCredential {
                    logger.debug("redirect to another origin: credentials dropped", metadata: ["to": "\(Origin(next.request)?.description ?? "?")"])
                }
                carriesCredentials = carriesCredentials && next.keepsCredential
                request = next.request
            }
        }
        throw .unknown(reason: "more than \(maximumRedirects) redirects")
    }

    private enum Step: Sendable {
        case complete(Int64)
        case refused(HTTPErrorResponse)
        case redirect(HTTPResponse)
    }

    /// Sends one request; a 200 is streamed into place, anything else is read (bounded) and returned.
    private func send(_ request: HTTPRequest, to destination: URL, progress: @Sendable (DownloadProgress) -> Void) async throws(EntitlementError) -> Step {
        do {
            return try await transport.stream(request, body: nil) { response, body async throws -> Step in
                switch response.status.code {
                case 200:
                    return .complete(try await write(body, expected: response.headerFields[.contentLength].flatMap { Int64($0) }, to: destination, progress: progress))
                case 300...399 where response.headerFields[.location] != nil:
                    return .redirect(response)
                default:
                    var kept = Data()
                    for try await chunk in body where kept.count < HTTPErrorResponse.maximumBodySize { kept.append(chunk) }
                    return .refused(HTTPErrorResponse(response, body: kept, keepsBody: false))
                }
            }
        } catch let error as EntitlementError {
            throw error
        } catch {
            if error is CancellationError || Task.isCancelled { throw .networkFailure(underlying: CancellationError()) }
            throw .networkFailure(underlying: error)
        }
    }

    /// Streams `body` into a temporary file and renames it over `destination` once complete.
    private func write(_ body: HTTPResponseBody, expected: Int64?, to destination: URL, progress: @Sendable (DownloadProgress) -> Void) async throws -> Int64 {
        var file = try PartialFile(beside: destination, syncing: syncing)
        do {
            progress(DownloadProgress(bytesReceived: 0, expectedBytes: expected))
            for try await chunk in body {
                try Task.checkCancellation()
                try file.write(chunk)
                progress(DownloadProgress(bytesReceived: file.written, expectedBytes: expected))
            }
            try Task.checkCancellation()
            if let expected, file.written != expected {
                throw EntitlementError.networkFailure(underlying: TransportError.invalidRequest("the body ended after \(file.written) of \(expected) bytes"))
            }
        } catch {
            file.discard()
            throw error
        }
        try file.complete()
        return file.written
    }
}
