import ClearanceServer
import Foundation

/// `Tests/Interop/webhook_receiver.py`: a receiver that checks every webhook with the official
/// Pusher library's `validate_webhook`, optionally answering 500 to the first ones.
package struct PythonWebhookReceiver: Sendable {
    /// The running receiver.
    package let process: ChildProcess
    /// Its port on 127.0.0.1.
    package let port: Int

    /// Where the hub should POST.
    package var url: String { "http://127.0.0.1:\(port)/webhooks" }

    /// Starts the receiver for the app of `key` and `secret` (the test app's by default) on
    /// `port` (0: a free one), answering `failureStatus` (500 by default) to the first `failures`
    /// webhooks, 413 to a body larger than `maxBody` bytes (nil: any size), and stalling after
    /// the head of the first `stalls`, and returns once it listens.
    package static func start(
        key: String = TestHub.key, secret: String = TestHub.secret, port: Int = 0, failures: Int = 0, failureStatus: Int = 500,
        maxBody: Int? = nil, stalls: Int = 0
    ) async throws -> PythonWebhookReceiver {
        let (process, bound) = try await PythonPeer.startListening("webhook_receiver.py", [
            key, secret, "\(port)", "\(failures)", "\(maxBody ?? 0)", "\(stalls)", "\(failureStatus)",
        ])
        return PythonWebhookReceiver(process: process, port: bound)
    }

    /// The bodies `validate_webhook` accepted, in the order they came.
    package var payloads: [WebhookPayload] {
        lines("webhook ").compactMap { try? JSONDecoder().decode(WebhookPayload.self, from: Data($0.utf8)) }
    }

    /// Every event of every accepted webhook, in order.
    package var events: [WebhookEvent] { payloads.flatMap(\.events) }

    /// The webhooks `validate_webhook` refused, or that came with another Content-Type.
    package var problems: [String] {
        outputLines().filter { $0.hasPrefix("invalid") || $0.hasPrefix("content-type") }.map(String.init)
    }

    /// How many webhooks it refused on purpose (the first `failures`).
    package var refused: Int { lines("refused ").count }

    /// The sizes of the bodies it answered 413, in order.
    package var tooLarge: [Int] { lines("too-large ").compactMap { Int($0) } }

    /// How many webhooks it stalled after their head.
    package var stalled: Int { lines("stalled ").count }

    /// Stops it (SIGKILL: it holds nothing).
    package func stop() async {
        await process.stop(.kill)
    }

    private func lines(_ prefix: String) -> [String] {
        outputLines().filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }

    /// The lines of its output, split at newline bytes: tests poll these while a receiver prints
    /// thousands of lines of up to 10 KB, and splitting a string by its characters is the slow way.
    private func outputLines() -> [Substring] {
        let text = process.stdout
        return text.utf8.split(separator: UInt8(ascii: "\n")).map { Substring($0) }
    }
}
