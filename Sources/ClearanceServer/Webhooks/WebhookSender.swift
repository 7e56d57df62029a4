import AsyncHTTPClient
import ClearanceSigning
import Foundation
import NIOCore

/// Sends one batch of webhook events to its target: a POST of the signed JSON body, redirects not
/// followed, an answer expected within the attempt timeout.
struct WebhookSender: Sendable {
    /// Why an attempt failed (no secret, header value or body in it).
    enum Failure: Error, Sendable, CustomStringConvertible {
        case status(Int)
        case noAnswer(String)

        var description: String {
            switch self {
            case let .status(code): "the receiver answered \(code)"
            case let .noAnswer(reason): "no answer: \(reason)"
            }
        }
    }

    let client: HTTPClient
    /// One deadline for the whole attempt: connecting, the request, the answer's head and its
    /// body (AsyncHTTPClient's own deadline stops at the head).
    let timeout: Duration

    /// Posts `events` to `target`, signed by `signer`, with `now` (the hub's clock) as the body's
    /// `time_ms`; returns once the receiver answered 2xx. The attempt's deadline is the machine's:
    /// it bounds a real socket.
    /// - Throws: ``Failure``.
    func send(_ events: [WebhookEvent], to target: WebhookTarget, signer: WebhookSigner, now: Date) async throws(Failure) {
        let body = WebhookPayload(timeMilliseconds: Int64((now.timeIntervalSince1970 * 1_000).rounded(.down)), events: events).encoded()
        let headers = target.headers.map { ($0.key, $0.value) } + [("Content-Type", "application/json")]
            + signer.headers(body: body).map { ($0.key, $0.value) }
        let (client, timeout, url) = (client, timeout, target.url)
        let status: Int?
        do {
            status = try await withThrowingTaskGroup(of: Int?.self) { group in
                group.addTask {
                    var request = HTTPClientRequest(url: url)
                    request.method = .POST
                    for (name, value) in headers { request.headers.replaceOrAdd(name: name, value: value) }
                    request.body = .bytes(ByteBuffer(bytes: body))
                    let nanoseconds = timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000
                    let response = try await client.execute(request, timeout: .nanoseconds(nanoseconds))
                    // The answer's body means nothing to the hub, but it is read (a little: so the
                    // connection can be reused) within the same deadline.
                    do {
                        _ = try await response.body.collect(upTo: 65_536)
                    } catch where !(error is CancellationError) && !Task.isCancelled {
                        // A larger body: the status is what counts.
                    }
                    return Int(response.status.code)
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                defer { group.cancelAll() }
                return try await group.next() ?? nil
            }
        } catch {
            throw .noAnswer(Self.describe(error))
        }
        guard let status else { throw .noAnswer("timed out (no whole answer within \(timeout))") }
        guard (200..<300).contains(status) else { throw .status(status) }
    }

    /// A short reason, without the URL (which may hold a token in its query).
    private static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .connectTimeout: return "timed out"
            default: return "\(error)".split(separator: "(").first.map(String.init) ?? "failed"
            }
        }
        return "\(type(of: error))"
    }
}
