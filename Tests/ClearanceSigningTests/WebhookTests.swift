import ClearanceSigning
import Foundation
import Testing

/// Webhook signing (`X-Pusher-Key`, `X-Pusher-Signature`) and verification.
struct WebhookTests {
    let signer: WebhookSigner
    let body = Data(#"{"time_ms":1327078148132,"events":[{"name":"channel_occupied","channel":"test_channel"}]}"#.utf8)

    init() throws {
        signer = try WebhookSigner(key: "webhook-key", secret: "webhook-secret")
    }

    @Test func signatureIsHexHMACOfTheBody() throws {
        // Same construction as channel auth: HMAC-SHA256(secret, message) in lower-case hex.
        // Cross-checked with the pusher-http-node channel vector: secret "tofu", message "123.456:test".
        let tofu = try WebhookSigner(key: "aaaa", secret: "tofu")
        #expect(tofu.signature(body: Data("123.456:test".utf8)) == "efa6cf7644a0b35cba36aa0f776f3cbf7bb60e95ea2696bde1dbe8403b61bd7c")
        let signature = signer.signature(body: body)
        #expect(signature.count == 64)
        #expect(signer.headers(body: body) == ["X-Pusher-Key": "webhook-key", "X-Pusher-Signature": signature])
        #expect(WebhookSigner.keyHeaderName == "X-Pusher-Key")
        #expect(WebhookSigner.signatureHeaderName == "X-Pusher-Signature")
        // Any DataProtocol body gives the same result.
        #expect(signer.signature(body: Array(body)) == signature)
    }

    @Test func verification() throws {
        let signature = signer.signature(body: body)
        #expect(signer.verify(key: "webhook-key", signature: signature, body: body))
        #expect(!signer.verify(key: "other-key", signature: signature, body: body))
        #expect(!signer.verify(key: "webhook-key", signature: signature.uppercased(), body: body))
        #expect(!signer.verify(key: "webhook-key", signature: String(signature.dropFirst()), body: body))
        #expect(!signer.verify(key: "webhook-key", signature: "", body: body))
        var tampered = body
        tampered[tampered.startIndex + 2] ^= 1
        #expect(!signer.verify(key: "webhook-key", signature: signature, body: tampered))
        let other = try WebhookSigner(key: "webhook-key", secret: "other-secret")
        #expect(!other.verify(key: "webhook-key", signature: signature, body: body))
    }

    @Test func configuration() {
        #expect(throws: SigningError.invalidKey) { try WebhookSigner(key: "", secret: "s") }
        #expect(throws: SigningError.emptySecret) { try WebhookSigner(key: "k", secret: "") }
    }
}
