// The Salsa20/20 core, HSalsa20 and the XSalsa20 keystream, written from D. J. Bernstein's
// "Salsa20 specification" (2005) and "Extending the Salsa20 nonce" (2008).
//
// The code is deliberately flat — sixteen local words, raw pointers, wrapping arithmetic, no
// helper calls inside the rounds — because the test suite runs in debug builds, where every
// abstraction is a real function call.

/// The XSalsa20 stream cipher: Salsa20/20 keyed with an HSalsa20 subkey, giving a 192-bit nonce.
///
/// A Salsa20 state is sixteen 32-bit words, each read little-endian from its bytes:
///
///     σ0  k0  k1  k2
///     k3  σ1  n0  n1
///     b0  b1  σ2  k4
///     k5  k6  k7  σ3
///
/// where σ is "expand 32-byte k", k the 256-bit key, n the 64-bit nonce and b the 64-bit block
/// counter. HSalsa20 uses the same layout with a 128-bit input in n0 n1 b0 b1, and XSalsa20 runs
/// Salsa20 with key HSalsa20(key, nonce[0..<16]) and nonce nonce[16..<24].
enum XSalsa20 {
    /// Bytes in one Salsa20 keystream block.
    static let blockLength = 64

    /// "expa", "nd 3", "2-by", "te k" as little-endian words.
    static let sigma0: UInt32 = 0x6170_7865
    static let sigma1: UInt32 = 0x3320_646E
    static let sigma2: UInt32 = 0x7962_2D32
    static let sigma3: UInt32 = 0x6B20_6574

    /// Reads the little-endian word at `offset` bytes from `pointer` (no alignment needed).
    @inline(__always)
    static func word(_ pointer: UnsafeRawPointer, _ offset: Int) -> UInt32 {
        UInt32(littleEndian: pointer.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    /// Runs the 20 Salsa20 rounds (10 double rounds) over the 16 words at `input` and stores
    /// the result at `output` (which may equal `input`).
    ///
    /// With `feedForward` each result word is added to its input word: that is the Salsa20 core
    /// ("Salsa20 hash"). Without it the bare permutation is returned, which HSalsa20 needs.
    static func core(_ input: UnsafePointer<UInt32>, _ output: UnsafeMutablePointer<UInt32>, feedForward: Bool) {
        var x0 = input[0], x1 = input[1], x2 = input[2], x3 = input[3]
        var x4 = input[4], x5 = input[5], x6 = input[6], x7 = input[7]
        var x8 = input[8], x9 = input[9], x10 = input[10], x11 = input[11]
        var x12 = input[12], x13 = input[13], x14 = input[14], x15 = input[15]
        var t: UInt32 = 0
        var doubleRound = 0
        while doubleRound < 10 {
            // Column round: quarterround(x0, x4, x8, x12), (x5, x9, x13, x1), (x10, x14, x2, x6), (x15, x3, x7, x11).
            t = x0 &+ x12; x4 ^= (t &<< 7) | (t &>> 25)
            t = x4 &+ x0; x8 ^= (t &<< 9) | (t &>> 23)
            t = x8 &+ x4; x12 ^= (t &<< 13) | (t &>> 19)
            t = x12 &+ x8; x0 ^= (t &<< 18) | (t &>> 14)
            t = x5 &+ x1; x9 ^= (t &<< 7) | (t &>> 25)
            t = x9 &+ x5; x13 ^= (t &<< 9) | (t &>> 23)
            t = x13 &+ x9; x1 ^= (t &<< 13) | (t &>> 19)
            t = x1 &+ x13; x5 ^= (t &<< 18) | (t &>> 14)
            t = x10 &+ x6; x14 ^= (t &<< 7) | (t &>> 25)
            t = x14 &+ x10; x2 ^= (t &<< 9) | (t &>> 23)
            t = x2 &+ x14; x6 ^= (t &<< 13) | (t &>> 19)
            t = x6 &+ x2; x10 ^= (t &<< 18) | (t &>> 14)
            t = x15 &+ x11; x3 ^= (t &<< 7) | (t &>> 25)
            t = x3 &+ x15; x7 ^= (t &<< 9) | (t &>> 23)
            t = x7 &+ x3; x11 ^= (t &<< 13) | (t &>> 19)
            t = x11 &+ x7; x15 ^= (t &<< 18) | (t &>> 14)
            // Row round: quarterround(x0, x1, x2, x3), (x5, x6, x7, x4), (x10, x11, x8, x9), (x15, x12, x13, x14).
            t = x0 &+ x3; x1 ^= (t &<< 7) | (t &>> 25)
            t = x1 &+ x0; x2 ^= (t &<< 9) | (t &>> 23)
            t = x2 &+ x1; x3 ^= (t &<< 13) | (t &>> 19)
            t = x3 &+ x2; x0 ^= (t &<< 18) | (t &>> 14)
            t = x5 &+ x4; x6 ^= (t &<< 7) | (t &>> 25)
            t = x6 &+ x5; x7 ^= (t &<< 9) | (t &>> 23)
            t = x7 &+ x6; x4 ^= (t &<< 13) | (t &>> 19)
            t = x4 &+ x7; x5 ^= (t &<< 18) | (t &>> 14)
            t = x10 &+ x9; x11 ^= (t &<< 7) | (t &>> 25)
            t = x11 &+ x10; x8 ^= (t &<< 9) | (t &>> 23)
            t = x8 &+ x11; x9 ^= (t &<< 13) | (t &>> 19)
            t = x9 &+ x8; x10 ^= (t &<< 18) | (t &>> 14)
            t = x15 &+ x14; x12 ^= (t &<< 7) | (t &>> 25)
            t = x12 &+ x15; x13 ^= (t &<< 9) | (t &>> 23)
            t = x13 &+ x12; x14 ^= (t &<< 13) | (t &>> 19)
            t = x14 &+ x13; x15 ^= (t &<< 18) | (t &>> 14)
            doubleRound &+= 1
        }
        if feedForward {
            x0 = x0 &+ input[0]; x1 = x1 &+ input[1]; x2 = x2 &+ input[2]; x3 = x3 &+ input[3]
            x4 = x4 &+ input[4]; x5 = x5 &+ input[5]; x6 = x6 &+ input[6]; x7 = x7 &+ input[7]
            x8 = x8 &+ input[8]; x9 = x9 &+ input[9]; x10 = x10 &+ input[10]; x11 = x11 &+ input[11]
            x12 = x12 &+ input[12]; x13 = x13 &+ input[13]; x14 = x14 &+ input[14]; x15 = x15 &+ input[15]
        }
        output[0] = x0; output[1] = x1; output[2] = x2; output[3] = x3
        output[4] = x4; output[5] = x5; output[6] = x6; output[7] = x7
        output[8] = x8; output[9] = x9; output[10] = x10; output[11] = x11
        output[12] = x12; output[13] = x13; output[14] = x14; output[15] = x15
    }

    /// Fills `state` (16 words) for XSalsa20 under `key` (32 bytes) and `nonce` (24 bytes),
    /// with the block counter at 0. `scratch` (16 words) is used and then zeroed.
    static func initialize(
        _ state: UnsafeMutablePointer<UInt32>,
        key: UnsafeRawPointer,
        nonce: UnsafeRawPointer,
        scratch: UnsafeMutablePointer<UInt32>
    ) {
        // HSalsa20(key, nonce[0..<16]): the bare permutation of the Salsa20 input block.
        state[0] = sigma0
        state[1] = word(key, 0); state[2] = word(key, 4); state[3] = word(key, 8); state[4] = word(key, 12)
        state[5] = sigma1
        state[6] = word(nonce, 0); state[7] = word(nonce, 4); state[8] = word(nonce, 8); state[9] = word(nonce, 12)
        state[10] = sigma2
        state[11] = word(key, 16); state[12] = word(key, 20); state[13] = word(key, 24); state[14] = word(key, 28)
        state[15] = sigma3
        core(state, scratch, feedForward: false)
        // The subkey is z0 z5 z10 z15 z6 z7 z8 z9; it becomes k0…k7 of the Salsa20 state.
        state[1] = scratch[0]; state[2] = scratch[5]; state[3] = scratch[10]; state[4] = scratch[15]
        state[11] = scratch[6]; state[12] = scratch[7]; state[13] = scratch[8]; state[14] = scratch[9]
        // Salsa20 nonce = nonce[16..<24], block counter = 0.
        state[6] = word(nonce, 16); state[7] = word(nonce, 20)
        state[8] = 0; state[9] = 0
        scratch.update(repeating: 0, count: 16)
    }

    /// Computes the keystream block for the counter in `state` into `keystream` (16 words whose
    /// bytes are the 64 keystream bytes in order), then advances the 64-bit counter.
    static func nextBlock(_ state: UnsafeMutablePointer<UInt32>, into keystream: UnsafeMutablePointer<UInt32>) {
        core(state, keystream, feedForward: true)
        #if _endian(big)
        var i = 0
        while i < 16 { keystream[i] = keystream[i].byteSwapped; i &+= 1 }
        #endif
        state[8] &+= 1
        if state[8] == 0 { state[9] &+= 1 }
    }

    /// XORs `count` keystream bytes into `input`, writing `output`, starting with the block
    /// counter currently in `state` and advancing it once per block used.
    ///
    /// `keystream` is 16 words of scratch. `input` and `output` may not partially overlap.
    static func xor(
        _ state: UnsafeMutablePointer<UInt32>,
        keystream: UnsafeMutablePointer<UInt32>,
        input: UnsafeRawPointer,
        output: UnsafeMutableRawPointer,
        count: Int
    ) {
        let ks = UnsafeRawPointer(keystream)
        var offset = 0
        while offset < count {
            nextBlock(state, into: keystream)
            let src = input + offset
            let dst = output + offset
            let remaining = count &- offset
            if remaining >= 64 {
                dst.storeBytes(of: src.loadUnaligned(fromByteOffset: 0, as: UInt64.self) ^ ks.loadUnaligned(fromByteOffset: 0, as: UInt64.self), toByteOffset: 0, as: UInt64.self)
                dst.storeBytes(of: src.loadUnaligned(fromByteOffset: 8, as: UInt64.self) ^ ks.loadUnaligned(fromByteOffset: 8, as: UInt64.self), toByteOffset: 8, as: UInt64.self)
                dst.storeBytes(of: src.loadUnaligned(fromByteOffset: 16, as: UInt64.self) ^ ks.loadUnaligned(fromByteOffset: 16, as: UInt64.self), toByteOffset: 16, as: UInt64.self)
                dst.storeBytes(of: src.loadUnaligned(fromByteOffset: 24, as: UInt64.self) ^ ks.loadUnaligned(fromByteOffset: 24, as: UInt64.self), toByteOffset: 24, as: UInt64.self)
                dst.storeBytes(of: src.loadUnaligned(fromByteOffset: 32, as: UInt64.self) ^ ks.loadUnaligned(fromByteOffset: 32, as: UInt64.self), toByteOffset: 32, as: UInt64.self)
                dst.storeBytes(of: src.loadUnaligned(fromByteOffset: 40, as: UInt64.self) ^ ks.loadUnaligned(fromByteOffset: 40, as: UInt64.self), toByteOffset: 40, as: UInt64.self)
                dst.storeBytes(of: src.loadUnaligned(fromByteOffset: 48, as: UInt64.self) ^ ks.loadUnaligned(fromByteOffset: 48, as: UInt64.self), toByteOffset: 48, as: UInt64.self)
                dst.storeBytes(of: src.loadUnaligned(fromByteOffset: 56, as: UInt64.self) ^ ks.loadUnaligned(fromByteOffset: 56, as: UInt64.self), toByteOffset: 56, as: UInt64.self)
                offset &+= 64
            } else {
                var i = 0
                while i < remaining {
                    dst.storeBytes(of: src.load(fromByteOffset: i, as: UInt8.self) ^ ks.load(fromByteOffset: i, as: UInt8.self), toByteOffset: i, as: UInt8.self)
                    i &+= 1
                }
                offset = count
            }
        }
    }
}

// MARK: - Array entry points for the known-answer tests

extension XSalsa20 {
    /// The Salsa20 core ("Salsa20 hash") of a 64-byte block, as in section 8 of the specification.
    static func salsa20Hash(_ block: [UInt8]) -> [UInt8] {
        precondition(block.count == 64, "Salsa20 hash input is 64 bytes")
        var words = [UInt32](repeating: 0, count: 16)
        block.withUnsafeBytes { raw in
            for i in 0..<16 { words[i] = word(raw.baseAddress!, 4 * i) }
        }
        words.withUnsafeMutableBufferPointer { w in core(w.baseAddress!, w.baseAddress!, feedForward: true) }
        return littleEndianBytes(words)
    }

    /// HSalsa20(key, input): the 32-byte subkey for a 32-byte key and a 16-byte input.
    static func hsalsa20(key: [UInt8], input: [UInt8]) -> [UInt8] {
        precondition(key.count == 32 && input.count == 16, "HSalsa20 takes a 32-byte key and a 16-byte input")
        var state = [UInt32](repeating: 0, count: 32)
        let nonce = input + [UInt8](repeating: 0, count: 8)
        key.withUnsafeBytes { k in
            nonce.withUnsafeBytes { n in
                state.withUnsafeMutableBufferPointer { s in
                    initialize(s.baseAddress!, key: k.baseAddress!, nonce: n.baseAddress!, scratch: s.baseAddress! + 16)
                }
            }
        }
        return littleEndianBytes([state[1], state[2], state[3], state[4], state[11], state[12], state[13], state[14]])
    }

    /// `count` bytes of the XSalsa20 keystream for `key` and `nonce`, from block 0.
    static func keystream(key: [UInt8], nonce: [UInt8], count: Int) -> [UInt8] {
        precondition(key.count == 32 && nonce.count == 24 && count >= 0, "XSalsa20 takes a 32-byte key and a 24-byte nonce")
        var state = [UInt32](repeating: 0, count: 32)
        let zeros = [UInt8](repeating: 0, count: count)
        var out = [UInt8](repeating: 0, count: count)
        key.withUnsafeBytes { k in
            nonce.withUnsafeBytes { n in
                state.withUnsafeMutableBufferPointer { s in
                    initialize(s.baseAddress!, key: k.baseAddress!, nonce: n.baseAddress!, scratch: s.baseAddress! + 16)
                    zeros.withUnsafeBytes { z in
                        out.withUnsafeMutableBytes { o in
                            if count > 0 {
                                xor(s.baseAddress!, keystream: s.baseAddress! + 16, input: z.baseAddress!, output: o.baseAddress!, count: count)
                            }
                        }
                    }
                }
            }
        }
        return out
    }

    private static func littleEndianBytes(_ words: [UInt32]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(4 * words.count)
        for w in words {
            bytes.append(UInt8(truncatingIfNeeded: w))
            bytes.append(UInt8(truncatingIfNeeded: w >> 8))
            bytes.append(UInt8(truncatingIfNeeded: w >> 16))
            bytes.append(UInt8(truncatingIfNeeded: w >> 24))
        }
        return bytes
    }
}
