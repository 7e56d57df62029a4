// Poly1305, written from D. J. Bernstein's "The Poly1305-AES message-authentication code" (2005)
// and RFC 8439 section 2.5.
//
// The accumulator h and the clamped multiplier r are held in five 26-bit limbs (radix 2^26), so
// every limb product fits in 64 bits with room for the sums. Reduction uses 2^130 ≡ 5 (mod p).

/// The Poly1305 one-time authenticator: a 16-byte tag of a message under a 32-byte one-time key.
enum Poly1305 {
    /// Bytes in a Poly1305 key (r ‖ s).
    static let keyLength = 32
    /// Bytes in a Poly1305 tag.
    static let tagLength = 16

    /// Reads the little-endian 64-bit word at `offset` bytes from `pointer` (no alignment needed).
    @inline(__always)
    static func word64(_ pointer: UnsafeRawPointer, _ offset: Int) -> UInt64 {
        UInt64(littleEndian: pointer.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// Computes the tag of `message` under the 32-byte `key` and stores it at `tag` (16 bytes).
    ///
    /// `tag` may point into memory that `message` does not cover; they must not overlap.
    static func authenticate(_ message: UnsafeRawBufferPointer, key: UnsafeRawPointer, tag: UnsafeMutableRawPointer) {
        let mask26: UInt64 = 0x3FF_FFFF
        let mask32: UInt64 = 0xFFFF_FFFF

        // r = key[0..<16] with the top four bits of bytes 3, 7, 11, 15 and the bottom two bits
        // of bytes 4, 8, 12 cleared ("clamping").
        let k0 = word64(key, 0) & 0x0FFF_FFFC_0FFF_FFFF
        let k1 = word64(key, 8) & 0x0FFF_FFFC_0FFF_FFFC
        let r0 = k0 & mask26
        let r1 = (k0 >> 26) & mask26
        let r2 = ((k0 >> 52) | (k1 << 12)) & mask26
        let r3 = (k1 >> 14) & mask26
        let r4 = (k1 >> 40) & mask26
        // Limb products that land at 2^130 and above wrap to ×5.
        let s1 = r1 &* 5, s2 = r2 &* 5, s3 = r3 &* 5, s4 = r4 &* 5

        var h0: UInt64 = 0, h1: UInt64 = 0, h2: UInt64 = 0, h3: UInt64 = 0, h4: UInt64 = 0
        let count = message.count
        var offset = 0
        // Holds the final partial block: its bytes, then 0x01, then zeros.
        var last: (UInt64, UInt64) = (0, 0)
        while offset < count {
            let m0: UInt64, m1: UInt64, hibit: UInt64
            let base = message.baseAddress! + offset
            if count &- offset >= 16 {
                // A full block is read as a 129-bit number: its 16 bytes plus 2^128.
                m0 = word64(base, 0)
                m1 = word64(base, 8)
                hibit = 1 << 24
                offset &+= 16
            } else {
                let remaining = count &- offset
                withUnsafeMutableBytes(of: &last) { buffer in
                    var i = 0
                    while i < remaining {
                        buffer[i] = base.load(fromByteOffset: i, as: UInt8.self)
                        i &+= 1
                    }
                    buffer[remaining] = 1
                }
                m0 = UInt64(littleEndian: last.0)
                m1 = UInt64(littleEndian: last.1)
                hibit = 0
                offset = count
            }

            // h += m
            h0 &+= m0 & mask26
            h1 &+= (m0 >> 26) & mask26
            h2 &+= ((m0 >> 52) | (m1 << 12)) & mask26
            h3 &+= (m1 >> 14) & mask26
            h4 &+= (m1 >> 40) | hibit

            // h *= r (mod 2^130 - 5). Limbs are below 2^27 and r-limbs (times 5) below 2^29,
            // so each sum of five products stays below 2^59.
            let d0 = h0 &* r0 &+ h1 &* s4 &+ h2 &* s3 &+ h3 &* s2 &+ h4 &* s1
            var d1 = h0 &* r1 &+ h1 &* r0 &+ h2 &* s4 &+ h3 &* s3 &+ h4 &* s2
            var d2 = h0 &* r2 &+ h1 &* r1 &+ h2 &* r0 &+ h3 &* s4 &+ h4 &* s3
            var d3 = h0 &* r3 &+ h1 &* r2 &+ h2 &* r1 &+ h3 &* r0 &+ h4 &* s4
            var d4 = h0 &* r4 &+ h1 &* r3 &+ h2 &* r2 &+ h3 &* r1 &+ h4 &* r0

            // Partial carry back into 26-bit limbs.
            var c = d0 >> 26
            h0 = d0 & mask26
            d1 &+= c; c = d1 >> 26; h1 = d1 & mask26
            d2 &+= c; c = d2 >> 26; h2 = d2 & mask26
            d3 &+= c; c = d3 >> 26; h3 = d3 & mask26
            d4 &+= c; c = d4 >> 26; h4 = d4 & mask26
            h0 &+= c &* 5; c = h0 >> 26; h0 &= mask26
            h1 &+= c
        }

        // Full carry: afterwards h < 2^130 + 2^52, so h < 2p.
        var c = h1 >> 26; h1 &= mask26
        h2 &+= c; c = h2 >> 26; h2 &= mask26
        h3 &+= c; c = h3 >> 26; h3 &= mask26
        h4 &+= c; c = h4 >> 26; h4 &= mask26
        h0 &+= c &* 5; c = h0 >> 26; h0 &= mask26
        h1 &+= c

        // g = h + 5 - 2^130 = h - p. If that does not go negative (h ≥ p) use g, else h —
        // selected with a mask, not a branch.
        var g0 = h0 &+ 5; c = g0 >> 26; g0 &= mask26
        var g1 = h1 &+ c; c = g1 >> 26; g1 &= mask26
        var g2 = h2 &+ c; c = g2 >> 26; g2 &= mask26
        var g3 = h3 &+ c; c = g3 >> 26; g3 &= mask26
        var g4 = h4 &+ c
        let useG = 0 &- (g4 >> 26)  // all ones when g4 reached 2^26, i.e. h ≥ p
        g4 &= mask26
        let useH = ~useG
        h0 = (h0 & useH) | (g0 & useG)
        h1 = (h1 & useH) | (g1 & useG)
        h2 = (h2 & useH) | (g2 & useG)
        h3 = (h3 & useH) | (g3 & useG)
        h4 = (h4 & useH) | (g4 & useG)

        // h mod 2^128 as four 32-bit words. Built by addition, so a limb that is exactly 2^26
        // (possible for h1 after the last carry) still lands in the right place.
        var f = h0 &+ (h1 << 26)
        let w0 = f & mask32
        f = (f >> 32) &+ (h2 << 20)
        let w1 = f & mask32
        f = (f >> 32) &+ (h3 << 14)
        let w2 = f & mask32
        f = (f >> 32) &+ (h4 << 8)
        let w3 = f & mask32

        // tag = (h + s) mod 2^128, s = key[16..<32].
        let pad0 = word64(key, 16), pad1 = word64(key, 24)
        var acc = w0 &+ (pad0 & mask32)
        let t0 = acc & mask32
        acc = (acc >> 32) &+ w1 &+ (pad0 >> 32)
        let t1 = acc & mask32
        acc = (acc >> 32) &+ w2 &+ (pad1 & mask32)
        let t2 = acc & mask32
        acc = (acc >> 32) &+ w3 &+ (pad1 >> 32)
        let t3 = acc & mask32

        let low = t0 | (t1 << 32), high = t2 | (t3 << 32)
        tag.storeBytes(of: low.littleEndian, toByteOffset: 0, as: UInt64.self)
        tag.storeBytes(of: high.littleEndian, toByteOffset: 8, as: UInt64.self)
        last = (0, 0)
    }

    /// The tag of `message` under `key` (32 bytes), for the known-answer tests.
    static func tag(_ message: [UInt8], key: [UInt8]) -> [UInt8] {
        precondition(key.count == keyLength, "Poly1305 takes a 32-byte key")
        var out = [UInt8](repeating: 0, count: tagLength)
        message.withUnsafeBytes { m in
            key.withUnsafeBytes { k in
                out.withUnsafeMutableBytes { o in
                    authenticate(m, key: k.baseAddress!, tag: o.baseAddress!)
                }
            }
        }
        return out
    }
}
