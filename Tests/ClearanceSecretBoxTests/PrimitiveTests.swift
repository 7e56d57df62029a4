import Testing
@testable import ClearanceSecretBox

/// Known answers for the building blocks, from their specifications and the NaCl test suite.
/// Every value here was also reproduced with an independent reference (PyNaCl / libsodium or
/// the `cryptography` package's Poly1305) before being pasted.
@Suite struct PrimitiveTests {
    // MARK: Salsa20 core

    @Test func salsa20HashOfZeroIsZero() {
        // Salsa20 specification, section 8: Salsa20(0) = 0.
        let zero = [UInt8](repeating: 0, count: 64)
        #expect(XSalsa20.salsa20Hash(zero) == zero)
    }

    @Test func salsa20HashSpecificationExample() {
        // Salsa20 specification, section 8, second example.
        let input: [UInt8] = [
            211, 159, 13, 115, 76, 55, 82, 183, 3, 117, 222, 37, 191, 187, 234, 136,
            49, 237, 179, 48, 1, 106, 178, 219, 175, 199, 166, 48, 86, 16, 179, 207,
            31, 240, 32, 63, 15, 83, 93, 161, 116, 147, 48, 113, 238, 55, 204, 36,
            79, 201, 235, 79, 3, 81, 156, 47, 203, 26, 244, 243, 88, 118, 104, 54,
        ]
        let expected: [UInt8] = [
            109, 42, 178, 168, 156, 240, 248, 238, 168, 196, 190, 203, 26, 110, 170, 154,
            29, 29, 150, 26, 150, 30, 235, 249, 190, 163, 251, 48, 69, 144, 51, 57,
            118, 40, 152, 157, 180, 57, 27, 94, 107, 42, 236, 35, 27, 111, 114, 114,
            219, 236, 232, 135, 111, 155, 110, 18, 24, 232, 95, 158, 179, 19, 48, 202,
        ]
        #expect(XSalsa20.salsa20Hash(input) == expected)
    }

    // MARK: HSalsa20

    @Test func hsalsa20FromSharedSecret() {
        // NaCl tests/core1.c: firstkey = HSalsa20(shared, 0). (libsodium crypto_box_beforenm agrees.)
        let shared = hex("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742")
        let firstkey = hex("1b27556473e985d462cd51197a9a46c76009549eac6474f206c4ee0844f68389")
        #expect(XSalsa20.hsalsa20(key: shared, input: [UInt8](repeating: 0, count: 16)) == firstkey)
    }

    @Test func hsalsa20WithNoncePrefix() {
        // NaCl tests/core2.c: secondkey = HSalsa20(firstkey, nonce[0..<16]).
        let firstkey = hex("1b27556473e985d462cd51197a9a46c76009549eac6474f206c4ee0844f68389")
        let noncePrefix = hex("69696ee955b62b73cd62bda875fc73d6")
        let secondkey = hex("dc908dda0b9344a953629b733820778880f3ceb421bb61b91cbd4c3e66256ce4")
        #expect(XSalsa20.hsalsa20(key: firstkey, input: noncePrefix) == secondkey)
    }

    // MARK: XSalsa20 keystream

    @Test func xsalsa20Keystream() {
        // NaCl tests/stream3.c gives the first 32 bytes; the rest (crossing into block 3)
        // was produced with libsodium through PyNaCl's secretbox of zero bytes.
        let key = hex("1b27556473e985d462cd51197a9a46c76009549eac6474f206c4ee0844f68389")
        let nonce = hex("69696ee955b62b73cd62bda875fc73d68219e0036b7a0b37")
        let expected = hex("""
            eea6a7251c1e72916d11c2cb214d3c252539121d8e234e652d651fa4c8cff880
            309e645a74e9e0a60d8243acd9177ab51a1beb8d5a2f5d700c093c5e55855796
            25337bd3ab619d615760d8c5b224a85b1d0efe0eb8a7ee163abb0376529fcc09
            bab506c618e13ce777d82c3ae9d1a6f972d4160287cbfe60bf2130fc0a6ff604
            9d0a5c8a82f429231f008082e845d7e189d37f9ed2b464e6b919e6523a8c1210
            bd52a02a4c3fe406d3085f5068d1909eeeca6369abc981a42e87fe665583f0ab
            85ae71f6f84f528e
            """)
        #expect(XSalsa20.keystream(key: key, nonce: nonce, count: 200) == expected)
        // Every prefix length agrees with the long stream (partial-block handling).
        for count in [0, 1, 7, 8, 63, 64, 65, 127, 128, 129, 199] {
            #expect(XSalsa20.keystream(key: key, nonce: nonce, count: count) == Array(expected.prefix(count)))
        }
    }

    @Test func secretboxCiphertextIsKeystreamFromByte32() throws {
        // The secretbox construction: ciphertext = message XOR keystream[32...].
        let key = hex("1b27556473e985d462cd51197a9a46c76009549eac6474f206c4ee0844f68389")
        let nonce = hex("69696ee955b62b73cd62bda875fc73d68219e0036b7a0b37")
        let stream = XSalsa20.keystream(key: key, nonce: nonce, count: 32 + 300)
        let box = try SecretBox.seal([UInt8](repeating: 0, count: 300), nonce: nonce, key: key)
        #expect(Array(box.dropFirst(16)) == Array(stream.dropFirst(32)))
        // And the tag is Poly1305 of that ciphertext under keystream[0..<32].
        #expect(Array(box.prefix(16)) == Poly1305.tag(Array(box.dropFirst(16)), key: Array(stream.prefix(32))))
    }

    // MARK: Poly1305

    @Test func poly1305RFC8439Section252() {
        let key = hex("85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b")
        let message = Array("Cryptographic Forum Research Group".utf8)
        #expect(Poly1305.tag(message, key: key) == hex("a8061dc1305136c6c22b8baf0c0127a9"))
    }

    /// RFC 8439 appendix A.3, vectors 5–11: they drive the accumulator through the final
    /// reduction edge cases (h ≥ p, h just below p, carries out of the top limb).
    @Test(arguments: [
        ("02" + String(repeating: "00", count: 31), String(repeating: "ff", count: 16),
         "03000000000000000000000000000000"),
        ("02" + String(repeating: "00", count: 15) + String(repeating: "ff", count: 16), "02" + String(repeating: "00", count: 15),
         "03000000000000000000000000000000"),
        ("01" + String(repeating: "00", count: 31),
         String(repeating: "ff", count: 16) + "f0" + String(repeating: "ff", count: 15) + "11" + String(repeating: "00", count: 15),
         "05000000000000000000000000000000"),
        ("01" + String(repeating: "00", count: 31),
         String(repeating: "ff", count: 16) + "fb" + String(repeating: "fe", count: 15) + String(repeating: "01", count: 16),
         "00000000000000000000000000000000"),
        ("02" + String(repeating: "00", count: 31), "fd" + String(repeating: "ff", count: 15),
         "faffffffffffffffffffffffffffffff"),
        ("0100000000000000040000000000000000000000000000000000000000000000",
         "e33594d7505e43b900000000000000003394d7505e4379cd01000000000000000000000000000000000000000000000001000000000000000000000000000000",
         "14000000000000005500000000000000"),
        ("0100000000000000040000000000000000000000000000000000000000000000",
         "e33594d7505e43b900000000000000003394d7505e4379cd010000000000000000000000000000000000000000000000",
         "13000000000000000000000000000000"),
    ])
    func poly1305RFC8439EdgeCases(key: String, message: String, tag: String) {
        #expect(Poly1305.tag(hex(message), key: hex(key)) == hex(tag))
    }

    @Test func poly1305EmptyMessageIsS() {
        // With no blocks the accumulator stays 0, so the tag is s = key[16..<32].
        let key = hex("85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b")
        #expect(Poly1305.tag([], key: key) == Array(key.suffix(16)))
    }
}
