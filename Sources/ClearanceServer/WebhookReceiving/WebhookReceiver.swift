import ClearanceSigning
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Receives Pusher webhooks in a Hummingbird app: checks `X-Pusher-Key` and `X-Pusher-Signature`
/// over the raw body (read up to a bound), checks `time_ms` is recent, and hands the app typed
/// ``WebhookEvent``s.
///
/// ```swift
/// let receiver = try WebhookReceiver(key: appKey, secret: appSecret)
/// receiver.register(on: router, path: "/pusher/webhooks") { payload in
///     for event in payload.events {
///         if case let .channelVacated(channel) = event { await rooms.close(channel) }
///     }
/// }
/// ```
/// Answers 200 `{}` once `handle` returns; 401 for a missing or bad signature or a stale
/// `time_ms`, 413 for a body past the bound, 400 for a signed body that is not a webhook, 500
/// when `handle` throws (the hub then retries). Never crashes on what it receives.
public struct WebhookReceiver: Sendable {
    /// What the app does with a checked webhook; throwing answers 500.
    public typealias Handle = @Sendable (WebhookPayload) async throws -> Void

    /// The app key and secret's signer.
    public let signer: WebhookSigner
    /// The largest body read.
    public let maxBodyBytes: Int
    /// How far `time_ms` may be from now, either way (300 s, as the official libraries).
    public let maxAge: Duration

    /// - Throws: `SigningError.invalidKey` (empty, or with a colon) or `SigningError.emptySecret`.
    public init(key: String, secret: String, maxBodyBytes: Int = 1_048_576, maxAge: Duration = .seconds(300)) throws(SigningError) {
        signer = try WebhookSigner(key: key, secret: secret)
        self.maxBodyBytes = maxBodyBytes
        self.maxAge = maxAge
    }

    /// Checks one webhook: its headers' key and signature over `body`, then its shape and age.
    /// - Throws: ``WebhookReceiverError``.
    public func verify(key: String?, signature: String?, body: some DataProtocol, now: Date = Date()) throws(WebhookReceiverError) -> WebhookPayload {
        guard let key, let signature else { throw .missingHeaders }
        guard body.count <= maxBodyBytes else { throw .bodyTooLarge(limit: maxBodyBytes) }
        guard signer.verify(key: key, signature: signature, body: body) else { throw .invalidSignature }
        let payload: WebhookPayload
        do {
            payload = try JSONDecoder().decode(WebhookPayload.self, from: Data(body))
        } catch let DecodingError.dataCorrupted(context) where !context.codingPath.isEmpty {
            throw .malformedBody(reason: context.debugDescription)
        } catch {
            throw .malformedBody(reason: "not a JSON object with time_ms and events")
        }
        let age = now.timeIntervalSince(payload.time)
        let limit = Double(maxAge.components.seconds)
        guard abs(age) <= limit else { throw .stale(ageSeconds: Int(age.rounded())) }
        return payload
    }

    /// Answers one request: see the type's description.
    public func respond(to request: Request, handle: Handle) async -> Response {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: maxBodyBytes)
        } catch is NIOTooManyBytesError {
            return Self.refusal(.bodyTooLarge(limit: maxBodyBytes))
        } catch {
            return Self.refusal(.malformedBody(reason: "the body could not be read"))
        }
        let payload: WebhookPayload
        do throws(WebhookReceiverError) {
            payload = try verify(
                key: request.headers[HTTPField.Name(WebhookSigner.keyHeaderName)!],
                signature: request.headers[HTTPField.Name(WebhookSigner.signatureHeaderName)!],
                body: buffer.readableBytesView)
        } catch {
            return Self.refusal(error)
        }
        do {
            try await handle(payload)
        } catch {
            return JSONResponse.error(.internalServerError, code: "webhook.handlerFailed", message: "The app could not handle the webhook.")
        }
        return JSONResponse.make(.ok, "{}")
    }

    /// Adds `POST path` to `router`, answering with ``respond(to:handle:)``.
    public func register<Router: RouterMethods>(on router: Router, path: RouterPath = "/pusher/webhooks", handle: @escaping Handle) {
        router.post(path) { request, _ in await self.respond(to: request, handle: handle) }
    }

    private static func refusal(_ error: WebhookReceiverError) -> Response {
        JSONResponse.error(HTTPResponse.Status(code: error.status), code: error.qualifiedCode, message: error.message)
    }
}
