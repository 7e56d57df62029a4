import ClearanceSigning
import Clearance
import Crypto
import Foundation

/// Channel-auth signatures per second (the full `key:hexsignature` string), and verification on
/// the hub's subscribe path, each against baselines from the same run: swift-crypto's one-shot
/// `HMAC<SHA256>.authenticationCode` (same strings, same hex output), the physical limit of two
/// SHA-256 block compressions, and the official Python library when `.venv` has it.
struct SigningBench {
    /// Signatures (and verifications) timed per figure.
    var signatures = 200_000

    func run() {
        print("Channel authorization signing")
        let inputs = SigningInputs(count: 1_024)
        BenchStatus.measuring("the official Python library's signing (baseline)")
        let python = PythonSigningBaseline.microsecondsPerSignature(key: inputs.key, secret: inputs.secret, pairs: Array(zip(inputs.socketIDs, inputs.channels)))
        signing(inputs, python: python)
        verification(inputs)
    }

    private struct SigningInputs {
        let key = "bench-app-key"
        let secret = "bench-app-secret-0123456789abcdef"
        let socketIDs: [String]
        let channels: [String]
        /// `socket_id:channel_name`, what the baseline HMAC is given (a head start it keeps).
        let messages: [Data]
        let blocks: [[UInt8]]

        init(count: Int) {
            var generator = SystemRandomNumberGenerator()
            socketIDs = (0..<count).map { _ in "\(UInt32.random(in: 1...UInt32.max, using: &generator)).\(UInt32.random(in: 1...UInt32.max, using: &generator))" }
            channels = (0..<count).map { "private-orders-\($0)-\(UInt16.random(in: 0...UInt16.max, using: &generator))" }
            messages = zip(socketIDs, channels).map { Data("\($0):\($1)".utf8) }
            blocks = (0..<count).map { _ in (0..<64).map { _ in UInt8.random(in: 0...255, using: &generator) } }
        }
    }

    private func signing(_ inputs: SigningInputs, python: Double?) {
        let signer = try! ChannelAuthSigner(key: inputs.key, secret: inputs.secret)
        let key = SymmetricKey(data: Data(inputs.secret.utf8))
        let count = inputs.socketIDs.count
        var sink = 0
        BenchStatus.measuring("ChannelAuthSigner signing (\(signatures) signatures)")
        let ours = Measure.secondsPerIteration(signatures) { index in
            let slot = index % count
            sink &+= try! signer.authorizeChannel(socketID: inputs.socketIDs[slot], channelName: inputs.channels[slot]).auth.utf8.count
        }
        BenchStatus.measuring("swift-crypto one-shot HMAC signing (baseline)")
        let oneShot = Measure.secondsPerIteration(signatures) { index in
            let code = HMAC<SHA256>.authenticationCode(for: inputs.messages[index % count], using: key)
            sink &+= (inputs.key + ":" + Self.hex(code)).utf8.count
        }
        let limit = twoBlocks(inputs, sink: &sink)
        print("  signing (key:hexsignature)")
        report("Clearance ChannelAuthSigner", ours, oneShot: oneShot, limit: limit, python: python)
        if sink == 42 { print("") }
    }

    private func verification(_ inputs: SigningInputs) {
        let signer = try! ChannelAuthSigner(key: inputs.key, secret: inputs.secret)
        let key = SymmetricKey(data: Data(inputs.secret.utf8))
        let count = inputs.socketIDs.count
        let auths = (0..<count).map { try! signer.authorizeChannel(socketID: inputs.socketIDs[$0], channelName: inputs.channels[$0]).auth }
        var sink = 0
        BenchStatus.measuring("verifyChannelAuth (\(signatures) verifications)")
        let ours = Measure.secondsPerIteration(signatures) { index in
            let slot = index % count
            if signer.verifyChannelAuth(auth: auths[slot], socketID: inputs.socketIDs[slot], channelName: inputs.channels[slot]) { sink &+= 1 }
        }
        BenchStatus.measuring("swift-crypto one-shot HMAC verification (baseline)")
        let oneShot = Measure.secondsPerIteration(signatures) { index in
            let slot = index % count
            let code = HMAC<SHA256>.authenticationCode(for: inputs.messages[slot], using: key)
            if ConstantTime.equals(auths[slot], inputs.key + ":" + Self.hex(code)) { sink &+= 1 }
        }
        let limit = twoBlocks(inputs, sink: &sink)
        print("  verification on the subscribe path")
        report("Clearance verifyChannelAuth", ours, oneShot: oneShot, limit: limit, python: nil)
        if sink == 42 { print("") }
    }

    private func twoBlocks(_ inputs: SigningInputs, sink: inout Int) -> Double {
        BenchStatus.measuring("two SHA-256 block compressions (the limit)")
        let count = inputs.blocks.count
        var local = 0
        let seconds = Measure.secondsPerIteration(signatures) { index in
            let first = SHA256.hash(data: inputs.blocks[index % count])
            let second = SHA256.hash(data: inputs.blocks[(index + 1) % count])
            local &+= Int(first.withUnsafeBytes { $0[0] }) &+ Int(second.withUnsafeBytes { $0[0] })
        }
        sink &+= local
        return seconds
    }

    private func report(_ label: String, _ ours: Double, oneShot: Double, limit: Double, python: Double?) {
        func line(_ name: String, _ microseconds: Double, _ note: String) {
            print("    " + name.padding(toLength: 44, withPad: " ", startingAt: 0)
                + String(format: "%7.3f µs  %10.0f /s", microseconds, 1 / microseconds * 1_000_000) + note)
        }
        let oursMicroseconds = ours * 1_000_000
        let oneShotMicroseconds = oneShot * 1_000_000
        let limitMicroseconds = limit * 1_000_000
        line(label, oursMicroseconds, "")
        let speedup = oneShotMicroseconds / oursMicroseconds
        line("one-shot HMAC<SHA256>.authenticationCode", oneShotMicroseconds,
             String(format: "   ours is %.2f× faster (target ≥ 2×: %@)", speedup, speedup >= 2 ? "met" : "NOT met"))
        let overLimit = oursMicroseconds / limitMicroseconds
        line("limit: two SHA256.hash on 64-byte blocks", limitMicroseconds,
             String(format: "   ours is %.2f× the limit (target ≤ 3×: %@)", overLimit, overLimit <= 3 ? "met" : "NOT met"))
        if let python {
            let pythonSpeedup = python / oursMicroseconds
            line("official Python library (authenticate)", python,
                 String(format: "   ours is %.1f× faster (target ≥ 5×: %@)", pythonSpeedup, pythonSpeedup >= 5 ? "met" : "NOT met"))
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Plain table-driven hex, so the baseline is not slowed by a naive encoder.
    private static func hex(_ code: HashedAuthenticationCode<SHA256>) -> String {
        var output = [UInt8](repeating: 0, count: 64)
        code.withUnsafeBytes { bytes in
            for (index, byte) in bytes.enumerated() {
                output[2 * index] = hexDigits[Int(byte >> 4)]
                output[2 * index + 1] = hexDigits[Int(byte & 0x0F)]
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

}
