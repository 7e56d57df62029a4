import ClearanceOAuth2
import ClearanceStore
import Crypto
import Foundation

extension FuzzTarget {
    /// A session file as `EncryptedFileSessionStore` opens it. An even selector: the rest is the
    /// file's bytes (the envelope); an odd one: the rest is the decrypted payload, sealed with the
    /// fuzzer's key first, so the session decoding behind the authentication tag is reached.
    ///
    /// Invariants: a sealed payload opens to exactly what decoding it gives; an opened session
    /// encodes and decodes to the same session.
    static let sessionStore = FuzzTarget(name: "session-store", summary: "EncryptedFileStore.open (envelope, AES-GCM, StoredSession decoding)") { data throws(FuzzViolation) in
        let input = FuzzInput(data)
        let bytes: Data
        if input.selector & 1 == 0 {
            bytes = input.payload
        } else {
            guard let sealed = try? Store.seal(plaintext: input.payload, key: SessionStoreFuzzing.key, format: EncryptedFileSessionStore.format, path: "fuzz") else {
                throw FuzzViolation(description: "sealing failed")
            }
            bytes = sealed
        }
        let opened = try? Store.open(bytes, key: SessionStoreFuzzing.key, format: EncryptedFileSessionStore.format, moveAside: { nil })
        if input.selector & 1 == 1 {
            let decoded = try? JSONDecoder().decode(StoredSession.self, from: input.payload)
            try FuzzViolation.require(opened == decoded, "the sealed payload opened to something else")
        }
        if let opened { try SessionStoreFuzzing.requireRoundTrip(opened) }
    }

    private typealias Store = EncryptedFileStore<StoredSession>
}

enum SessionStoreFuzzing {
    static let key: SessionStoreKey = {
        do { return try SessionStoreKey(SymmetricKey(data: Data(repeating: 7, count: 32))) } catch { preconditionFailure("\(error)") }
    }()

    /// `session` encodes, and decodes back equal.
    static func requireRoundTrip(_ session: StoredSession) throws(FuzzViolation) {
        guard let encoded = try? JSONEncoder().encode(session) else { throw FuzzViolation(description: "a session does not encode: \(session)") }
        let decoded = try? JSONDecoder().decode(StoredSession.self, from: encoded)
        try FuzzViolation.require(decoded == session, "a session does not survive encoding: \(String(decoding: encoded, as: UTF8.self))")
    }
}
