import ClearanceSigning
import Testing

/// Hub-side verification of channel authorizations and user sign-ins.
struct VerificationTests {
    let signer: ChannelAuthSigner
    let presenceData = #"{"user_id":"7","user_info":{"name":"Ann"}}"#

    init() throws {
        signer = try ChannelAuthSigner(
            key: "key1", secret: "secret1", masterKeyBase64: "zyrm8pvV2C9fJcBfhyXzvxbJVN/H7QLmbe0xJi1GhPU=")
    }

    @Test func acceptsItsOwnSignatures() throws {
        for (channel, data) in [("private-a", nil), ("presence-a", presenceData), ("private-encrypted-a", nil), ("public-a", nil)] {
            let auth = try signer.authorizeChannel(socketID: "1.2", channelName: channel, channelData: data).auth
            #expect(signer.verifyChannelAuth(auth: auth, socketID: "1.2", channelName: channel, channelData: data))
            try signer.checkChannelAuth(auth: auth, socketID: "1.2", channelName: channel, channelData: data)
        }
    }

    @Test func rejectsWrongSignature() throws {
        let auth = try signer.authorizeChannel(socketID: "1.2", channelName: "private-a").auth
        let (key, signature) = try split(auth)
        var flipped = Array(signature.utf8)
        flipped[63] = flipped[63] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
        let candidates = [
            key + ":" + String(decoding: flipped, as: UTF8.self),
            key + ":" + signature.uppercased(),
            key + ":" + String(signature.dropLast()),
            key + ":" + signature + "0",
            key + ":",
        ]
        for candidate in candidates {
            #expect(!signer.verifyChannelAuth(auth: candidate, socketID: "1.2", channelName: "private-a"))
            #expect(throws: SigningError.invalidSignature) {
                try signer.checkChannelAuth(auth: candidate, socketID: "1.2", channelName: "private-a")
            }
        }
        let otherSecret = try ChannelAuthSigner(key: "key1", secret: "secret2")
        #expect(!otherSecret.verifyChannelAuth(auth: auth, socketID: "1.2", channelName: "private-a"))
    }

    @Test func rejectsWrongKey() throws {
        let auth = try signer.authorizeChannel(socketID: "1.2", channelName: "private-a").auth
        let (_, signature) = try split(auth)
        for key in ["key2", "key", "key11", ""] {
            #expect(throws: SigningError.unknownKey) {
                try signer.checkChannelAuth(auth: key + ":" + signature, socketID: "1.2", channelName: "private-a")
            }
        }
        #expect(throws: SigningError.malformedAuth) {
            try signer.checkChannelAuth(auth: signature, socketID: "1.2", channelName: "private-a")
        }
    }

    @Test func rejectsTamperedInputs() throws {
        let auth = try signer.authorizeChannel(socketID: "1.2", channelName: "presence-a", channelData: presenceData).auth
        #expect(signer.verifyChannelAuth(auth: auth, socketID: "1.2", channelName: "presence-a", channelData: presenceData))
        // Tampered channel name, socket id, channel data.
        #expect(!signer.verifyChannelAuth(auth: auth, socketID: "1.2", channelName: "presence-b", channelData: presenceData))
        #expect(!signer.verifyChannelAuth(auth: auth, socketID: "1.3", channelName: "presence-a", channelData: presenceData))
        #expect(!signer.verifyChannelAuth(
            auth: auth, socketID: "1.2", channelName: "presence-a", channelData: #"{"user_id":"8","user_info":{"name":"Ann"}}"#))
        // The same string re-serialized differently is a different signed string.
        #expect(!signer.verifyChannelAuth(
            auth: auth, socketID: "1.2", channelName: "presence-a", channelData: #"{"user_id": "7", "user_info": {"name": "Ann"}}"#))
        // Missing channel data on presence is a validation error, not a signature error.
        #expect(throws: SigningError.missingChannelData) {
            try signer.checkChannelAuth(auth: auth, socketID: "1.2", channelName: "presence-a")
        }
        // A private signature does not authorize the presence channel of the same name.
        let privateAuth = try signer.authorizeChannel(socketID: "1.2", channelName: "private-a").auth
        #expect(!signer.verifyChannelAuth(auth: privateAuth, socketID: "1.2", channelName: "private-b"))
        #expect(throws: SigningError.invalidSocketID) {
            try signer.checkChannelAuth(auth: privateAuth, socketID: "x", channelName: "private-a")
        }
    }

    @Test func verifiesUserSignIns() throws {
        let userData = #"{"id":"u1","user_info":{"plan":"pro"}}"#
        let auth = try signer.authenticateUser(socketID: "9.9", userData: userData).auth
        #expect(signer.verifyUserAuth(auth: auth, socketID: "9.9", userData: userData))
        #expect(!signer.verifyUserAuth(auth: auth, socketID: "9.8", userData: userData))
        #expect(!signer.verifyUserAuth(auth: auth, socketID: "9.9", userData: #"{"id":"u2","user_info":{"plan":"pro"}}"#))
        #expect(throws: SigningError.unknownKey) {
            try signer.checkUserAuth(auth: "other" + auth.drop(while: { $0 != ":" }), socketID: "9.9", userData: userData)
        }
        // A channel signature is not a user signature.
        let channelAuth = try signer.authorizeChannel(socketID: "9.9", channelName: "private-u1").auth
        #expect(throws: SigningError.invalidSignature) {
            try signer.checkUserAuth(auth: channelAuth, socketID: "9.9", userData: userData)
        }
    }

    private struct MalformedAuth: Error {}

    private func split(_ auth: String) throws -> (key: String, signature: String) {
        guard let colon = auth.firstIndex(of: ":") else { throw MalformedAuth() }
        return (String(auth[..<colon]), String(auth[auth.index(after: colon)...]))
    }
}
