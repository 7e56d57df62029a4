import ClearanceTestSupport
import Foundation
import Testing
import ClearanceSecretBox

@Suite struct SecretBoxTests {
    // MARK: Known answers

    /// pusher-http-python's `test_encrypt` (also ../shared/vectors/pusher-signatures.json,
    /// "secretbox"). Pusher does not use the master key directly: the box key is the channel's
    /// shared secret, SHA-256(channel name ‖ master key), here with channel
    /// "pvUPIk0YG6MnxCEMIUUVFrbDmQwbhICXUcy" and the raw ASCII master key
    /// "OTk5OTk5OTk5OTk5OTk5OTk5OTk5OTk5". The digest is pasted as a literal (this target has no
    /// SHA-256); it equals the `expected` bytes of that project's `test_generate_shared_secret`.
    @Test func pusherEncryptedChannelVector() throws {
        let sharedSecret = hex("709ef3090a24bfa98382cb5d025ca3622c82d31fa27f10b005c0dca27bae6516")
        let nonce = Array("XAJI0Y6DPBHSAHXTHV3A3ZMF".utf8)
        let plaintext = Array("kkkT5OOkOkO5kT5TOO5TkOT5TTk5O55T".utf8)
        let expected = try #require(Data(base64Encoded: "tsYJa2JgGDOpVIYFe4aNVWAvZlpB7z7CjN9mpIdbATE0Yc4izN8aM8D6VigBxnIQ"))
        #expect(Data(base64Encoded: "WEFKSTBZNkRQQkhTQUhYVEhWM0EzWk1G").map(Array.init) == nonce)

        let box = try SecretBox.seal(plaintext, nonce: nonce, key: sharedSecret)
        #expect(box == Array(expected))
        #expect(try SecretBox.open(Array(expected), nonce: nonce, key: sharedSecret) == plaintext)
    }

    /// NaCl tests/secretbox.c and secretbox2.c (131-byte message); reproduced with PyNaCl 1.6.2.
    @Test func naclDistributionVector() throws {
        let key = hex("1b27556473e985d462cd51197a9a46c76009549eac6474f206c4ee0844f68389")
        let nonce = hex("69696ee955b62b73cd62bda875fc73d68219e0036b7a0b37")
        let message = hex("""
            be075fc53c81f2d5cf141316ebeb0c7b5228c52a4c62cbd44b66849b64244ffc
            e5ecbaaf33bd751a1ac728d45e6c61296cdc3c01233561f41db66cce314adb31
            0e3be8250c46f06dceea3a7fa1348057e2f6556ad6b1318a024a838f21af1fde
            048977eb48f59ffd4924ca1c60902e52f0a089bc76897040e082f93776384864
            5e0705
            """)
        let box = hex("""
            f3ffc7703f9400e52a7dfb4b3d3305d9
            8e993b9f48681273c29650ba32fc76ce48332ea7164d96a4476fb8c531a1186a
            c0dfc17c98dce87b4da7f011ec48c97271d2c20f9b928fe2270d6fb863d51738
            b48eeee314a7cc8ab932164548e526ae90224368517acfeabd6bb3732bc0e9da
            99832b61ca01b6de56244a9e88d5f9b37973f622a43d14a6599b1f654cb45a74
            e355a5
            """)
        #expect(message.count == 131)
        #expect(try SecretBox.seal(message, nonce: nonce, key: key) == box)
        #expect(try SecretBox.open(box, nonce: nonce, key: key) == message)
    }

    @Test func emptyMessage() throws {
        let key = [UInt8](repeating: 7, count: 32), nonce = [UInt8](repeating: 9, count: 24)
        let box = try SecretBox.seal([], nonce: nonce, key: key)
        #expect(box.count == SecretBox.tagLength)
        #expect(try SecretBox.open(box, nonce: nonce, key: key) == [])
    }

    /// Empty messages opened on many threads at once: under `scripts/sanitize thread` this was a
    /// data race (building `[]` with capacity 0 wrote the shared empty-array storage).
    @Test func emptyMessagesOpenConcurrently() async throws {
        let key = [UInt8](repeating: 7, count: 32), nonce = [UInt8](repeating: 9, count: 24)
        let box = try SecretBox.seal([], nonce: nonce, key: key)
        let opened = await withTaskGroup(of: [UInt8]?.self) { group in
            for _ in 0..<64 { group.addTask { try? SecretBox.open(box, nonce: nonce, key: key) } }
            return await group.reduce(into: [[UInt8]?]()) { $0.append($1) }
        }
        #expect(opened.count == 64 && opened.allSatisfy { $0 == [] })
    }

    @Test func roundTripAcrossBlockBoundaries() throws {
        var rng = SeededGenerator(seed: 0x5EC2_E7B0)
        let key = rng.bytes(32), nonce = rng.bytes(24)
        for length in [0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 95, 96, 97, 127, 128, 129, 1000, 4096] {
            let message = rng.bytes(length)
            let box = try SecretBox.seal(message, nonce: nonce, key: key)
            #expect(box.count == length + 16)
            #expect(try SecretBox.open(box, nonce: nonce, key: key) == message, "length \(length)")
        }
    }

    // MARK: Tampering

    @Test func everyAlteredByteIsRejected() throws {
        var rng = SeededGenerator(seed: 0x7A3B_E12D)
        let key = rng.bytes(32), nonce = rng.bytes(24), message = rng.bytes(100)
        let box = try SecretBox.seal(message, nonce: nonce, key: key)
        #expect(try SecretBox.open(box, nonce: nonce, key: key) == message)
        var rejected = 0
        for position in box.indices {
            for pattern: UInt8 in [0x01, 0x02, 0x10, 0x80, 0xFF] {
                var altered = box
                altered[position] ^= pattern
                #expect(throws: SecretBoxError.authenticationFailed, "byte \(position) ^ \(pattern)") {
                    try SecretBox.open(altered, nonce: nonce, key: key)
                }
                rejected += 1
            }
        }
        #expect(rejected == 116 * 5)
    }

    @Test func truncatedOrExtendedBoxIsRejected() throws {
        var rng = SeededGenerator(seed: 0x1357_9BDF)
        let key = rng.bytes(32), nonce = rng.bytes(24), message = rng.bytes(100)
        let box = try SecretBox.seal(message, nonce: nonce, key: key)
        for length in [16, 17, 50, 115] {
            #expect(throws: SecretBoxError.authenticationFailed, "prefix \(length)") {
                try SecretBox.open(Array(box.prefix(length)), nonce: nonce, key: key)
            }
        }
        #expect(throws: SecretBoxError.authenticationFailed) {
            try SecretBox.open(box + [0], nonce: nonce, key: key)
        }
        for length in 0..<16 {
            #expect(throws: SecretBoxError.boxTooShort(length)) {
                try SecretBox.open(Array(box.prefix(length)), nonce: nonce, key: key)
            }
        }
    }

    @Test func wrongKeyOrNonceIsRejected() throws {
        var rng = SeededGenerator(seed: 0x2468_ACE0)
        let key = rng.bytes(32), nonce = rng.bytes(24), message = rng.bytes(100)
        let box = try SecretBox.seal(message, nonce: nonce, key: key)
        for position in key.indices {
            var wrongKey = key
            wrongKey[position] ^= 0x01
            #expect(throws: SecretBoxError.authenticationFailed, "key byte \(position)") {
                try SecretBox.open(box, nonce: nonce, key: wrongKey)
            }
        }
        for position in nonce.indices {
            var wrongNonce = nonce
            wrongNonce[position] ^= 0x01
            #expect(throws: SecretBoxError.authenticationFailed, "nonce byte \(position)") {
                try SecretBox.open(box, nonce: wrongNonce, key: key)
            }
        }
        #expect(throws: SecretBoxError.authenticationFailed) {
            try SecretBox.open(box, nonce: nonce, key: rng.bytes(32))
        }
    }

    // MARK: Lengths

    @Test func badLengthsAreTypedErrors() {
        let key = [UInt8](repeating: 1, count: 32), nonce = [UInt8](repeating: 2, count: 24)
        let box = [UInt8](repeating: 3, count: 40)
        for length in [0, 1, 16, 31, 33, 64] {
            let badKey = [UInt8](repeating: 1, count: length)
            #expect(throws: SecretBoxError.invalidKeyLength(length)) { try SecretBox.seal([1], nonce: nonce, key: badKey) }
            #expect(throws: SecretBoxError.invalidKeyLength(length)) { try SecretBox.open(box, nonce: nonce, key: badKey) }
        }
        for length in [0, 8, 16, 23, 25, 32] {
            let badNonce = [UInt8](repeating: 2, count: length)
            #expect(throws: SecretBoxError.invalidNonceLength(length)) { try SecretBox.seal([1], nonce: badNonce, key: key) }
            #expect(throws: SecretBoxError.invalidNonceLength(length)) { try SecretBox.open(box, nonce: badNonce, key: key) }
        }
        // Checked in order: key, nonce, box length.
        #expect(throws: SecretBoxError.invalidKeyLength(3)) { try SecretBox.open([], nonce: [], key: [1, 2, 3]) }
        #expect(throws: SecretBoxError.invalidNonceLength(0)) { try SecretBox.open([], nonce: [], key: key) }
        #expect(throws: SecretBoxError.boxTooShort(0)) { try SecretBox.open([], nonce: nonce, key: key) }
    }

    @Test func errorCodesAndMessages() {
        let cases: [(SecretBoxError, String)] = [
            (.invalidKeyLength(31), "secretbox.invalidKeyLength"),
            (.invalidNonceLength(23), "secretbox.invalidNonceLength"),
            (.boxTooShort(15), "secretbox.boxTooShort"),
            (.authenticationFailed, "secretbox.authenticationFailed"),
        ]
        for (error, code) in cases {
            #expect(error.qualifiedCode == code)
            #expect(!error.message.isEmpty)
            #expect(error.description == "\(code): \(error.message)")
        }
        #expect(SecretBoxError.invalidKeyLength(31).message.contains("31"))
        #expect(SecretBoxError.boxTooShort(15).message.contains("15"))
    }

    // MARK: Convenience overloads

    @Test func dataAndSliceOverloads() throws {
        var rng = SeededGenerator(seed: 42)
        let key = rng.bytes(32), nonce = rng.bytes(24), message = rng.bytes(77)
        let box = try SecretBox.seal(message, nonce: nonce, key: key)
        #expect(try SecretBox.seal(Data(message), nonce: Data(nonce), key: Data(key)) == box)
        let padded = [0xAA] + box + [0xBB]
        #expect(try SecretBox.open(padded[1..<(padded.count - 1)], nonce: nonce[...], key: Data(key)) == message)
        #expect(throws: SecretBoxError.invalidKeyLength(5)) { try SecretBox.seal(Data(message), nonce: Data(nonce), key: Data(count: 5)) }
    }
}
