// Needs `Process`, so it exists only where the test host can spawn the Python peer.
#if os(macOS) || os(Linux)
import ClearanceTestSupport
import Foundation
import Testing
import ClearanceSecretBox

/// Swift ⇄ PyNaCl (libsodium) on 10,000 seeded random cases, in both directions:
/// Swift's box must equal PyNaCl's byte for byte, PyNaCl must open Swift's box, and Swift must
/// open PyNaCl's box. The peer is Tests/Interop/pynacl_secretbox.py run with the package's
/// .venv interpreter (or `CLEARANCE_PYTHON`).
@Suite struct InteropTests {
    static let seed: UInt64 = 0xC1EA_2A9C_E5EC_2E7B
    static let caseCount = 10_000
    static let maxLength = 20_000
    /// Always covered: empty, around the 16-byte Poly1305 block, the 32-byte block-0 split and
    /// the 64-byte Salsa20 block, a page, and the maximum.
    static let boundaryLengths = [0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 4096, 20_000]

    struct Case {
        var key: [UInt8]
        var nonce: [UInt8]
        var message: [UInt8]
        var box: [UInt8]
    }

    @Test func pynaclInteropBothDirections() async throws {
        let clock = ContinuousClock()

        // 1. Generate the cases and seal them in Swift.
        var rng = SeededGenerator(seed: Self.seed)
        var lengths = Self.boundaryLengths
        let logRange = log(Double(Self.maxLength + 1))
        while lengths.count < Self.caseCount {
            // Log-uniform over 0...maxLength: every size class gets cases, the total stays small.
            let unit = Double(rng.next() >> 11) / Double(UInt64(1) << 53)
            lengths.append(min(Self.maxLength, Int(exp(unit * logRange)) - 1))
        }
        var cases: [Case] = []
        cases.reserveCapacity(lengths.count)
        var totalBytes = 0
        var sealTime = Duration.zero
        for length in lengths {
            let key = rng.bytes(SecretBox.keyLength)
            let nonce = rng.bytes(SecretBox.nonceLength)
            let message = rng.bytes(length)
            var box: [UInt8] = []
            sealTime += try clock.measure { box = try SecretBox.seal(message, nonce: nonce, key: key) }
            totalBytes += length
            cases.append(Case(key: key, nonce: nonce, message: message, box: box))
        }

        // 2. Hand them to PyNaCl.
        var input: [UInt8] = Array("SBX1".utf8)
        input.reserveCapacity(8 + cases.count * 76 + 2 * totalBytes)
        appendUInt32(&input, cases.count)
        for item in cases {
            input += item.key
            input += item.nonce
            appendUInt32(&input, item.message.count)
            input += item.message
            input += item.box
        }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("clearance-secretbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let inputURL = directory.appendingPathComponent("cases.bin")
        let outputURL = directory.appendingPathComponent("results.bin")
        try Data(input).write(to: inputURL)

        let pythonStart = clock.now
        let run = try await PythonPeer.run("pynacl_secretbox.py", [inputURL.path, outputURL.path])
        let pythonTime = clock.now - pythonStart
        if run.status == 3 {
            Issue.record("PyNaCl is not installed: \(PythonPeer.installHint)\n\(run.stderr)")
            return
        }
        try #require(run.status == 0, "pynacl_secretbox.py exited with \(run.status): \(run.stderr)")

        // 3. Check both directions.
        let output = [UInt8](try Data(contentsOf: outputURL))
        try #require(output.count >= 9 && Array(output[0..<4]) == Array("SBR1".utf8), "bad results header")
        try #require(readUInt32(output, at: 4) == cases.count, "results hold a different number of cases")
        let versionLength = Int(output[8])
        let version = String(decoding: output[9..<(9 + versionLength)], as: UTF8.self)
        var offset = 9 + versionLength

        var failures = 0
        var openTime = Duration.zero
        for (index, item) in cases.enumerated() {
            let boxLength = item.message.count + SecretBox.tagLength
            try #require(offset + 1 + boxLength <= output.count, "results truncated at case \(index)")
            let status = output[offset]
            let theirs = Array(output[(offset + 1)..<(offset + 1 + boxLength)])
            offset += 1 + boxLength

            let context = "case \(index) (seed \(Self.seed), length \(item.message.count))"
            var opened: [UInt8]? = nil
            openTime += clock.measure { opened = try? SecretBox.open(theirs, nonce: item.nonce, key: item.key) }
            let ok = status == 0 && theirs == item.box && opened == item.message
            if !ok {
                failures += 1
                if failures <= 10 {
                    #expect(status == 0, "PyNaCl did not open Swift's box (status \(status)), \(context)")
                    #expect(theirs == item.box, "Swift and PyNaCl boxes differ, \(context): key \(hexString(item.key)) nonce \(hexString(item.nonce))")
                    #expect(opened == item.message, "Swift did not open PyNaCl's box, \(context)")
                }
            }
        }
        #expect(offset == output.count, "trailing bytes in results")
        #expect(failures == 0, "\(failures) of \(cases.count) cases failed")

        let megabytes = Double(totalBytes) / 1_000_000
        print(String(
            format: "secretbox interop: %d cases, %.1f MB, PyNaCl %@; Swift seal %.2f s (%.1f MB/s), Swift open %.2f s (%.1f MB/s), PyNaCl %.2f s",
            cases.count, megabytes, version,
            sealTime.seconds, megabytes / sealTime.seconds,
            openTime.seconds, megabytes / openTime.seconds,
            pythonTime.seconds))
    }
}

private func appendUInt32(_ bytes: inout [UInt8], _ value: Int) {
    let v = UInt32(value)
    bytes += [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8),
              UInt8(truncatingIfNeeded: v >> 16), UInt8(truncatingIfNeeded: v >> 24)]
}

private func readUInt32(_ bytes: [UInt8], at offset: Int) -> Int {
    Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16 | Int(bytes[offset + 3]) << 24
}

extension Duration {
    fileprivate var seconds: Double {
        let (s, attoseconds) = components
        return Double(s) + Double(attoseconds) / 1e18
    }
}
#endif
