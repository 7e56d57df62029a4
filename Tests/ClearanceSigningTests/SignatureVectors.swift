import ClearanceTestSupport
import Foundation

/// The public vectors in ClearanceTestSupport's `Fixtures/pusher-signatures.json` (a copy of
/// `../shared/vectors/pusher-signatures.json`).
struct SignatureVectors: Decodable, Sendable {
    struct ChannelAuth: Decodable, Sendable {
        let source: String
        let key: String
        let secret: String
        let socketID: String
        let channel: String
        let channelData: String?
        let auth: String
    }

    struct EncryptedChannelAuth: Decodable, Sendable {
        let source: String
        let key: String
        let secret: String
        let masterKeyBase64: String
        let socketID: String?
        let channel: String
        let channelData: String?
        let auth: String?
        let sharedSecret: String
    }

    struct UserAuth: Decodable, Sendable {
        let source: String
        let key: String
        let secret: String
        let socketID: String
        let userData: String
        let auth: String
    }

    struct RESTRequest: Decodable, Sendable {
        let source: String
        let appID: String
        let key: String
        let secret: String
        let method: String
        let path: String
        let authTimestamp: String
        let authVersion: String
        let body: String
        let bodyMD5: String
        let stringToSign: String
        let authSignature: String
    }

    let channelAuth: [ChannelAuth]
    let encryptedChannelAuth: [EncryptedChannelAuth]
    let userAuth: [UserAuth]
    let restRequestSigning: [RESTRequest]

    static func load() throws -> SignatureVectors {
        try SnakeCaseKeys.decoder.decode(SignatureVectors.self, from: Fixture.data("pusher-signatures.json"))
    }
}
