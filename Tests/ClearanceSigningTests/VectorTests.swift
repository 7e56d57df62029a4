import ClearanceSigning
import Foundation
import Testing

/// Every public vector in `Fixtures/pusher-signatures.json`.
struct VectorTests {
    let vectors: SignatureVectors

    init() throws {
        vectors = try SignatureVectors.load()
    }

    @Test func fixtureHasEveryGroup() {
        #expect(vectors.channelAuth.count == 6)
        #expect(vectors.encryptedChannelAuth.count == 2)
        #expect(vectors.userAuth.count == 1)
        #expect(vectors.restRequestSigning.count == 1)
    }

    @Test func channelAuth() throws {
        for vector in vectors.channelAuth {
            let signer = try ChannelAuthSigner(key: vector.key, secret: vector.secret)
            let authorization = try signer.authorizeChannel(
                socketID: vector.socketID, channelName: vector.channel, channelData: vector.channelData)
            #expect(authorization.auth == vector.auth, "\(vector.source)")
            #expect(authorization.channelData == vector.channelData, "\(vector.source)")
            #expect(authorization.sharedSecret == nil)
            #expect(signer.verifyChannelAuth(
                auth: vector.auth, socketID: vector.socketID, channelName: vector.channel, channelData: vector.channelData))
        }
    }

    @Test func encryptedChannelAuth() throws {
        for vector in vectors.encryptedChannelAuth {
            let signer = try ChannelAuthSigner(key: vector.key, secret: vector.secret, masterKeyBase64: vector.masterKeyBase64)
            #expect(try signer.sharedSecret(channelName: vector.channel) == vector.sharedSecret, "\(vector.source)")
            // The second vector has no socket id: it checks the shared secret only.
            guard let socketID = vector.socketID, let expectedAuth = vector.auth else { continue }
            let authorization = try signer.authorizeChannel(
                socketID: socketID, channelName: vector.channel, channelData: vector.channelData)
            #expect(authorization.auth == expectedAuth, "\(vector.source)")
            #expect(authorization.sharedSecret == vector.sharedSecret, "\(vector.source)")
            #expect(authorization.channelData == vector.channelData)
        }
    }

    @Test func userAuth() throws {
        for vector in vectors.userAuth {
            let signer = try ChannelAuthSigner(key: vector.key, secret: vector.secret)
            let authentication = try signer.authenticateUser(socketID: vector.socketID, userData: vector.userData)
            #expect(authentication.auth == vector.auth, "\(vector.source)")
            #expect(authentication.userData == vector.userData)
            #expect(signer.verifyUserAuth(auth: vector.auth, socketID: vector.socketID, userData: vector.userData))
        }
    }

    @Test func restRequestSigning() throws {
        for vector in vectors.restRequestSigning {
            let signer = try RESTRequestSigner(appID: vector.appID, key: vector.key, secret: vector.secret)
            let timestamp = try #require(Int64(vector.authTimestamp))
            let body = Data(vector.body.utf8)
            let signature = try signer.sign(method: vector.method, path: vector.path, body: body, timestamp: timestamp)
            #expect(signature.stringToSign == vector.stringToSign, "\(vector.source)")
            #expect(signature.bodyMD5 == vector.bodyMD5)
            #expect(signature.authSignature == vector.authSignature)
            #expect(signature.queryParameters == [
                "auth_key": vector.key,
                "auth_timestamp": vector.authTimestamp,
                "auth_version": vector.authVersion,
                "body_md5": vector.bodyMD5,
                "auth_signature": vector.authSignature,
            ])
            // Date-based signing truncates to the same second.
            let viaDate = try signer.sign(
                method: vector.method, path: vector.path, body: body,
                now: Date(timeIntervalSince1970: Double(timestamp) + 0.75))
            #expect(viaDate == signature)

            let verifier = try RESTRequestVerifier(key: vector.key, secret: vector.secret)
            try verifier.verify(
                method: vector.method, path: vector.path, query: signature.queryParameters, body: body,
                now: Date(timeIntervalSince1970: Double(timestamp) + 30))
        }
    }
}
