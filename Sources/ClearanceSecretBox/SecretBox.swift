import Clearance

/// NaCl `crypto_secretbox`: XSalsa20 encryption with a Poly1305 tag, as used by Pusher
/// `private-encrypted-` channels (`{"nonce": base64(24 bytes), "ciphertext": base64(box)}`).
///
/// Construction (NaCl / libsodium `crypto_secretbox_easy`): with keystream = XSalsa20(key, nonce),
/// bytes 0..<32 of keystream block 0 are the Poly1305 one-time key, the message is XORed with the
/// keystream from byte 32 on, and the tag authenticates the ciphertext. The box is
/// `tag (16 bytes) ‖ ciphertext` — what PyNaCl's `EncryptedMessage.ciphertext` holds.
///
/// A nonce must never be reused with the same key.
public enum SecretBox: Sendable {
    /// Bytes in a key: 32.
    public static let keyLength = 32
    /// Bytes in a nonce: 24.
    public static let nonceLength = 24
    /// Bytes in the Poly1305 tag that prefixes every box: 16.
    public static let tagLength = 16

    /// Encrypts and authenticates `message`.
    ///
    /// - Returns: tag (16 bytes) ‖ ciphertext (`message.count` bytes) — NaCl's combined form,
    ///   what PyNaCl's `EncryptedMessage.ciphertext` holds and what Pusher puts in "ciphertext".
    /// - Throws: ``SecretBoxError/invalidKeyLength(_:)`` or ``SecretBoxError/invalidNonceLength(_:)``
    ///   (checked in that order).
    public static func seal(_ message: [UInt8], nonce: [UInt8], key: [UInt8]) throws(SecretBoxError) -> [UInt8] {
        try check(keyCount: key.count, nonceCount: nonce.count)
        return message.withUnsafeBytes { m in
            nonce.withUnsafeBytes { n in
                key.withUnsafeBytes { k in
                    sealUnchecked(m, nonce: n.baseAddress!, key: k.baseAddress!)
                }
            }
        }
    }

    /// Verifies and decrypts a box made by `seal` (or by any NaCl secretbox implementation).
    ///
    /// The tag is checked in constant time before anything is decrypted; on failure no plaintext
    /// is produced.
    /// - Returns: the message (`box.count - 16` bytes).
    /// - Throws: ``SecretBoxError/invalidKeyLength(_:)``, ``SecretBoxError/invalidNonceLength(_:)``,
    ///   ``SecretBoxError/boxTooShort(_:)`` (checked in that order), then
    ///   ``SecretBoxError/authenticationFailed``.
    public static func open(_ box: [UInt8], nonce: [UInt8], key: [UInt8]) throws(SecretBoxError) -> [UInt8] {
        try check(keyCount: key.count, nonceCount: nonce.count)
        guard box.count >= tagLength else { throw .boxTooShort(box.count) }
        let opened = box.withUnsafeBytes { b in
            nonce.withUnsafeBytes { n in
                key.withUnsafeBytes { k in
                    openUnchecked(b, nonce: n.baseAddress!, key: k.baseAddress!)
                }
            }
        }
        guard let opened else { throw .authenticationFailed }
        return opened
    }

    /// `seal` for any byte collections, such as `Data` or `ArraySlice<UInt8>`; see the `[UInt8]` overload.
    public static func seal(_ message: some Collection<UInt8>, nonce: some Collection<UInt8>, key: some Collection<UInt8>) throws(SecretBoxError) -> [UInt8] {
        try seal(Array(message), nonce: Array(nonce), key: Array(key))
    }

    /// `open` for any byte collections, such as `Data` or `ArraySlice<UInt8>`; see the `[UInt8]` overload.
    public static func open(_ box: some Collection<UInt8>, nonce: some Collection<UInt8>, key: some Collection<UInt8>) throws(SecretBoxError) -> [UInt8] {
        try open(Array(box), nonce: Array(nonce), key: Array(key))
    }
}

extension SecretBox {
    /// Scratch for one operation: state (16 words), keystream block 0 (16 words), spare (16 words).
    private static let scratchBytes = 3 * 64

    private static func check(keyCount: Int, nonceCount: Int) throws(SecretBoxError) {
        guard keyCount == keyLength else { throw .invalidKeyLength(keyCount) }
        guard nonceCount == nonceLength else { throw .invalidNonceLength(nonceCount) }
    }

    /// XORs the first `count` (≤ 32) message bytes with keystream bytes 32..<64 of block 0.
    private static func xorHead(
        _ input: UnsafeRawPointer,
        block0: UnsafeMutablePointer<UInt32>,
        output: UnsafeMutableRawPointer,
        count: Int
    ) {
        let keystream = UnsafeRawPointer(block0) + 32
        var i = 0
        while i < count {
            output.storeBytes(
                of: input.load(fromByteOffset: i, as: UInt8.self) ^ keystream.load(fromByteOffset: i, as: UInt8.self),
                toByteOffset: i, as: UInt8.self)
            i &+= 1
        }
    }

    /// Encrypts `message.count` bytes from `input` into `output`: block 0 is already in `block0`,
    /// `state` holds the counter of block 1, `spare` is keystream scratch.
    private static func crypt(
        _ input: UnsafeRawPointer,
        output: UnsafeMutableRawPointer,
        count: Int,
        state: UnsafeMutablePointer<UInt32>,
        block0: UnsafeMutablePointer<UInt32>,
        spare: UnsafeMutablePointer<UInt32>
    ) {
        let head = count < 32 ? count : 32
        xorHead(input, block0: block0, output: output, count: head)
        if count > 32 {
            XSalsa20.xor(state, keystream: spare, input: input + 32, output: output + 32, count: count &- 32)
        }
    }

    /// Seals with lengths already checked: `nonce` is 24 readable bytes, `key` 32.
    static func sealUnchecked(_ message: UnsafeRawBufferPointer, nonce: UnsafeRawPointer, key: UnsafeRawPointer) -> [UInt8] {
        let count = message.count
        return withUnsafeTemporaryAllocation(byteCount: scratchBytes, alignment: 16) { raw in
            let words = raw.bindMemory(to: UInt32.self)
            let state = words.baseAddress!, block0 = state + 16, spare = state + 32
            XSalsa20.initialize(state, key: key, nonce: nonce, scratch: spare)
            XSalsa20.nextBlock(state, into: block0)
            let box = [UInt8](unsafeUninitializedCapacity: tagLength + count) { buffer, initialized in
                let out = UnsafeMutableRawPointer(buffer.baseAddress!)
                if count > 0 {
                    crypt(message.baseAddress!, output: out + tagLength, count: count, state: state, block0: block0, spare: spare)
                }
                Poly1305.authenticate(
                    UnsafeRawBufferPointer(start: out + tagLength, count: count),
                    key: UnsafeRawPointer(block0), tag: out)
                initialized = tagLength + count
            }
            words.update(repeating: 0)
            return box
        }
    }

    /// Opens with lengths already checked (`box.count` ≥ 16); `nil` when the tag does not verify.
    static func openUnchecked(_ box: UnsafeRawBufferPointer, nonce: UnsafeRawPointer, key: UnsafeRawPointer) -> [UInt8]? {
        let count = box.count - tagLength
        let tag = box.baseAddress!
        let ciphertext = tag + tagLength
        return withUnsafeTemporaryAllocation(byteCount: scratchBytes, alignment: 16) { raw -> [UInt8]? in
            let words = raw.bindMemory(to: UInt32.self)
            let state = words.baseAddress!, block0 = state + 16, spare = state + 32
            XSalsa20.initialize(state, key: key, nonce: nonce, scratch: spare)
            XSalsa20.nextBlock(state, into: block0)
            Poly1305.authenticate(
                UnsafeRawBufferPointer(start: ciphertext, count: count),
                key: UnsafeRawPointer(block0), tag: UnsafeMutableRawPointer(spare))
            var message: [UInt8]? = nil
            if ConstantTime.equals(UnsafeRawBufferPointer(start: UnsafeRawPointer(spare), count: tagLength), UnsafeRawBufferPointer(start: tag, count: tagLength)) {
                // An empty message is `[]`: building it with capacity 0 would write the count of
                // the shared empty-array storage, a data race ThreadSanitizer reports.
                message = count == 0 ? [] : [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                    crypt(ciphertext, output: UnsafeMutableRawPointer(buffer.baseAddress!), count: count,
                          state: state, block0: block0, spare: spare)
                    initialized = count
                }
            }
            words.update(repeating: 0)
            return message
        }
    }
}
