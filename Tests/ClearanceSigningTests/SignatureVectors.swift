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

        enum CodingKeys: String, CodingKey {
            case source, key, secret, channel, auth
            case socketID = "socket_id"
            case channelData = "channel_data"
        }
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

        enum CodingKeys: String, CodingKey {
            case source, key, secret, channel, auth
            case masterKeyBase64 = "master_key_base64"
            case socketID = "socket_id"
            case channelData = "channel_data"
            case sharedSecret = "shared_secret"
        }
    }

    struct UserAuth: Decodable, Sendable {
        let source: String
        let key: String
        let secret: String
        let socketID: String
        let userData: String
        let auth: String

        enum CodingKeys: String, CodingKey {
            case source, key, secret, auth
            case socketID = "socket_id"
            case userData = "user_data"
        }
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

        enum CodingKeys: String, CodingKey {
            case source, key, secret, method, path, body
            case appID = "app_id"
            case authTimestamp = "auth_timestamp"
            case authVersion = "auth_version"
            case bodyMD5 = "body_md5"
            case stringToSign = "string_to_sign"
            case authSignature = "auth_signature"
        }
    }

    let channelAuth: [ChannelAuth]
    let encryptedChannelAuth: [EncryptedChannelAuth]
    let userAuth: [UserAuth]
    let restRequestSigning: [RESTRequest]

    enum CodingKeys: String, CodingKey {
        case channelAuth = "channel_auth"
        case encryptedChannelAuth = "encrypted_channel_auth"
        case userAuth = "user_auth"
        case restRequestSigning = "rest_request_signing"
    }

    static func load() throws -> SignatureVectors {
        try JSONDecoder().decode(SignatureVectors.self, from: Fixture.data("pusher-signatures.json"))
    }
}
