import ClearanceWire
import Crypto
import Foundation

/// HMAC-SHA256 keyed with an app secret once; each message starts from a copy of that state,
/// so the key pads are never recomputed.
struct KeyedHMAC: Sendable {
    private let keyed: HMAC<SHA256>

    /// Keys the state with the UTF-8 bytes of `secret`.
    init(secret: String) {
        keyed = HMAC<SHA256>(key: SymmetricKey(data: Array(secret.utf8)))
    }

    /// The MAC of `message`.
    @inline(__always)
    func code(for message: UnsafeRawBufferPointer) -> HashedAuthenticationCode<SHA256> {
        var state = keyed
        state.update(data: message)
        return state.finalize()
    }

    /// The MAC of `message`, which may be split over several regions.
    func code(for message: some DataProtocol) -> HashedAuthenticationCode<SHA256> {
        var state = keyed
        state.update(data: message)
        return state.finalize()
    }

    /// The MAC of `first + separator + second [+ separator + third]`, assembled in one temporary
    /// buffer (on the stack when small) and hashed with a single update.
    @inline(__always)
    func code(
        _ first: String,
        _ second: String,
        _ third: String? = nil,
        separator: StaticString
    ) -> HashedAuthenticationCode<SHA256> {
        let separatorBytes = UnsafeRawBufferPointer(start: separator.utf8Start, count: separator.utf8CodeUnitCount)
        var total = first.utf8.count + separatorBytes.count + second.utf8.count
        if let third { total += separatorBytes.count + third.utf8.count }
        return withUnsafeTemporaryAllocation(byteCount: total, alignment: 1) { buffer in
            var offset = Self.copy(first, into: buffer, at: 0)
            offset = Self.copy(separatorBytes, into: buffer, at: offset)
            offset = Self.copy(second, into: buffer, at: offset)
            if let third {
                offset = Self.copy(separatorBytes, into: buffer, at: offset)
                offset = Self.copy(third, into: buffer, at: offset)
            }
            return code(for: UnsafeRawBufferPointer(rebasing: buffer[0..<offset]))
        }
    }

    /// Whether `given` is the lower-case hex encoding of `code`. The hex is decoded and the MAC
    /// compared by swift-crypto's constant-time equality.
    static func matches(hex given: String, code: HashedAuthenticationCode<SHA256>) -> Bool {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: SHA256.byteCount) { bytes in
            Hex.decodeLowercase(given, into: bytes) && code == UnsafeRawBufferPointer(bytes)
        }
    }

    /// Lower-case hex of `code`, after `prefix`, in one allocation.
    @inline(__always)
    static func hex(_ code: HashedAuthenticationCode<SHA256>, prefix: [UInt8] = []) -> String {
        code.withUnsafeBytes { Hex.string(prefix: prefix, bytes: $0) }
    }

    @inline(__always)
    private static func copy(_ string: String, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) -> Int {
        string.withUTF8Buffer { copy($0, into: buffer, at: offset) }
    }

    @inline(__always)
    private static func copy(
        _ bytes: UnsafeRawBufferPointer,
        into buffer: UnsafeMutableRawBufferPointer,
        at offset: Int
    ) -> Int {
        guard let source = bytes.baseAddress, let destination = buffer.baseAddress, !bytes.isEmpty else {
            return offset
        }
        (destination + offset).copyMemory(from: source, byteCount: bytes.count)
        return offset + bytes.count
    }
}
