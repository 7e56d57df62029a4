import ClearanceSigning
import Foundation
import Testing

/// Input validation: every typed error case of channel authorization and user authentication.
struct ValidationTests {
    static let masterKey = "zyrm8pvV2C9fJcBfhyXzvxbJVN/H7QLmbe0xJi1GhPU="
    let signer: ChannelAuthSigner

    init() throws {
        signer = try ChannelAuthSigner(key: "app-key", secret: "top-secret-value", masterKeyBase64: Self.masterKey)
    }

    // MARK: Configuration

    @Test func configurationErrors() {
        #expect(throws: SigningError.invalidKey) { try ChannelAuthSigner(key: "", secret: "s") }
        #expect(throws: SigningError.invalidKey) { try ChannelAuthSigner(key: "a:b", secret: "s") }
        #expect(throws: SigningError.emptySecret) { try ChannelAuthSigner(key: "k", secret: "") }
        #expect(throws: SigningError.invalidMasterKey) { try ChannelAuthSigner(key: "k", secret: "s", masterKeyBase64: "not base64!") }
        // 31 and 33 bytes.
        let short = Data(repeating: 7, count: 31).base64EncodedString()
        let long = Data(repeating: 7, count: 33).base64EncodedString()
        #expect(throws: SigningError.invalidMasterKey) { try ChannelAuthSigner(key: "k", secret: "s", masterKeyBase64: short) }
        #expect(throws: SigningError.invalidMasterKey) { try ChannelAuthSigner(key: "k", secret: "s", masterKeyBase64: long) }
        #expect(throws: SigningError.invalidMasterKey) { try ChannelAuthSigner(key: "k", secret: "s", masterKeyBase64: "") }
        #expect(throws: Never.self) { try ChannelAuthSigner(key: "k", secret: "s", masterKeyBase64: Self.masterKey) }
    }

    // MARK: Socket ids

    @Test(arguments: ["1.2", "123.456", "0.0", "0012.0034", "99999999999999999999.1"])
    func validSocketIDs(_ socketID: String) throws {
        #expect(SocketIDFormat.isValid(socketID))
        _ = try signer.authorizeChannel(socketID: socketID, channelName: "private-a")
    }

    @Test(arguments: ["", ".", "1.", ".1", "1", "1.2.3", "a.1", "1.b", " 1.2", "1.2 ", "1.2\n", "-1.2", "1,2", "١.٢", "１.２", "1.2:3"])
    func invalidSocketIDs(_ socketID: String) {
        #expect(!SocketIDFormat.isValid(socketID))
        #expect(throws: SigningError.invalidSocketID) {
            try signer.authorizeChannel(socketID: socketID, channelName: "private-a")
        }
        #expect(throws: SigningError.invalidSocketID) {
            try signer.authenticateUser(socketID: socketID, userData: #"{"id":"1"}"#)
        }
    }

    // MARK: Channel names

    @Test func channelNameCharacters() throws {
        let everyAllowed = "private-azAZ09_-=@,.;"
        _ = try signer.authorizeChannel(socketID: "1.1", channelName: everyAllowed)
        for bad in ["private-a b", "private-ä", "private-a/b", "private-a:b", "private-a#b", "#private", "private-\u{0}",
                    "presence-😀", "#server-to-user", "#server-to-user-", "#server-to-user-a:b", "private-a\n"] {
            #expect(throws: SigningError.invalidChannelName, "\(bad.debugDescription)") {
                try signer.authorizeChannel(socketID: "1.1", channelName: bad, channelData: #"{"user_id":"1"}"#)
            }
        }
        #expect(throws: SigningError.emptyChannelName) { try signer.authorizeChannel(socketID: "1.1", channelName: "") }
    }

    @Test func everyASCIICharacterIsClassifiedAsSpecified() {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-=@,.;".unicodeScalars)
        for value in UInt32(0)...0x2FF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let name = "private-a" + String(Character(scalar)) + "b"
            #expect(ChannelNameLimits.default.isValid(name) == allowed.contains(scalar), "U+\(String(value, radix: 16))")
        }
    }

    @Test func channelNameLength() throws {
        let at200 = "private-" + String(repeating: "x", count: 192)
        let at201 = at200 + "x"
        _ = try signer.authorizeChannel(socketID: "1.1", channelName: at200)
        #expect(throws: SigningError.channelNameTooLong(length: 201, limit: 200)) {
            try signer.authorizeChannel(socketID: "1.1", channelName: at201)
        }
        let hosted = try ChannelAuthSigner(key: "k", secret: "s", limits: .hosted)
        #expect(hosted.limits.maxLength == 164)
        let at164 = String(at200.prefix(164))
        _ = try hosted.authorizeChannel(socketID: "1.1", channelName: at164)
        #expect(throws: SigningError.channelNameTooLong(length: 165, limit: 164)) {
            try hosted.authorizeChannel(socketID: "1.1", channelName: String(at200.prefix(165)))
        }
        let custom = ChannelNameLimits(maxLength: 12)
        #expect(custom.isValid("private-abcd"))
        #expect(!custom.isValid("private-abcde"))
        #expect(ChannelNameLimits.default.maxLength == 200)
    }

    @Test func serverToUserChannelsAreNamedButNotAuthorized() throws {
        #expect(try ChannelNameLimits.default.validate("#server-to-user-42") == .serverToUser)
        #expect(throws: SigningError.serverToUserChannel) {
            try signer.authorizeChannel(socketID: "1.1", channelName: "#server-to-user-42")
        }
        #expect(!signer.verifyChannelAuth(auth: "app-key:00", socketID: "1.1", channelName: "#server-to-user-42"))
    }

    @Test func channelKinds() {
        #expect(ChannelNameKind(channelName: "orders") == .public)
        #expect(ChannelNameKind(channelName: "private-orders") == .private)
        #expect(ChannelNameKind(channelName: "private-encrypted-orders") == .privateEncrypted)
        #expect(ChannelNameKind(channelName: "presence-room") == .presence)
        #expect(ChannelNameKind(channelName: "#server-to-user-7") == .serverToUser)
        #expect(ChannelNameKind(channelName: "privateorders") == .public)
        #expect(ChannelNameKind(channelName: "Private-orders") == .public)
        #expect(ChannelNameKind.private.allowsClientEvents && ChannelNameKind.presence.allowsClientEvents)
        #expect(!ChannelNameKind.privateEncrypted.allowsClientEvents && !ChannelNameKind.public.allowsClientEvents)
        #expect(ChannelNameKind.privateEncrypted.requiresAuthorization && !ChannelNameKind.public.requiresAuthorization)
        #expect(ChannelNameKind.presence.requiresChannelData && !ChannelNameKind.private.requiresChannelData)
        #expect(ChannelNameKind.privateEncrypted.isEncrypted && !ChannelNameKind.private.isEncrypted)
    }

    // MARK: Channel data

    @Test func privateAndEncryptedChannelsWorkWithoutChannelData() throws {
        let plain = try signer.authorizeChannel(socketID: "1.1", channelName: "private-a")
        #expect(plain.channelData == nil && plain.sharedSecret == nil)
        #expect(plain.jsonObject == ["auth": plain.auth])
        let encrypted = try signer.authorizeChannel(socketID: "1.1", channelName: "private-encrypted-a")
        #expect(encrypted.channelData == nil)
        let secret = try #require(encrypted.sharedSecret)
        #expect(Data(base64Encoded: secret)?.count == 32)
        // The signature of an encrypted channel is computed like a private one's.
        let unencryptedSigner = try ChannelAuthSigner(key: "app-key", secret: "top-secret-value")
        #expect(unencryptedSigner.verifyChannelAuth(auth: encrypted.auth, socketID: "1.1", channelName: "private-encrypted-a"))
    }

    @Test func encryptedChannelNeedsMasterKey() throws {
        let noMaster = try ChannelAuthSigner(key: "k", secret: "s")
        #expect(!noMaster.hasMasterKey)
        #expect(throws: SigningError.missingMasterKey) {
            try noMaster.authorizeChannel(socketID: "1.1", channelName: "private-encrypted-a")
        }
        #expect(throws: SigningError.missingMasterKey) { try noMaster.sharedSecret(channelName: "private-encrypted-a") }
        #expect(throws: SigningError.invalidChannelName) { try signer.sharedSecret(channelName: "private-a") }
    }

    @Test func presenceNeedsChannelData() {
        #expect(throws: SigningError.missingChannelData) {
            try signer.authorizeChannel(socketID: "1.1", channelName: "presence-room")
        }
    }

    @Test(arguments: [
        "", " ", "null", "[]", #"[{"user_id":"1"}]"#, #""user""#, "42", #"{"user_id":"1""#, #"{"user_id":"1"} x"#,
        #"{"user_id":"1",}"#, #"{'user_id':'1'}"#, #"{"user_id":01}"#, "{\"user_id\":\"a\u{1}\"}", #"{"user_id":"\x"}"#,
        #"{"user_id":"1","x":tru}"#, #"{"user_id":"1","x":1.}"#, #"{"user_id":"1","x":-}"#, #"{"user_id":"1" "x":1}"#,
        #"{"user_id":"1","x":"\u12"}"#, String(repeating: "[", count: 100) + String(repeating: "]", count: 100),
        #"{"user_id":"1","deep":"# + String(repeating: "[", count: 70) + String(repeating: "]", count: 70) + "}",
    ])
    func malformedPresenceChannelData(_ channelData: String) {
        #expect(throws: SigningError.invalidChannelData) {
            try signer.authorizeChannel(socketID: "1.1", channelName: "presence-room", channelData: channelData)
        }
    }

    @Test(arguments: [
        "{}", #"{"user_info":{}}"#, #"{"user_id":""}"#, #"{"user_id":null}"#, #"{"user_id":true}"#, #"{"user_id":[1]}"#,
        #"{"user_id":{"id":1}}"#, #"{"user_id":"1","user_id":"2"}"#, #"{"userid":"1"}"#,
        "{\"user_id\":\"" + String(repeating: "x", count: 129) + "\"}",
        "{\"user_id\":\"" + String(repeating: "😀", count: 65) + "\"}", // 130 UTF-16 code units
        #"{"user_id":"\ud800"}"#,
    ])
    func unusablePresenceUserIDs(_ channelData: String) {
        #expect(throws: SigningError.invalidPresenceUserID) {
            try signer.authorizeChannel(socketID: "1.1", channelName: "presence-room", channelData: channelData)
        }
    }

    @Test func presenceChannelDataIsParsedAndSignedVerbatim() throws {
        let cases: [(String, String, Bool, String?)] = [
            (#"{"user_id":10,"user_info":{"name":"Mr. Pusher"}}"#, "10", true, #"{"name":"Mr. Pusher"}"#),
            (#" { "user_info" : [1, 2.5e-3, null] , "user_id" : "fred" } "#, "fred", false, "[1, 2.5e-3, null]"),
            (#"{"user\u005fid":"\u00e9\ud83d\ude00\n\/"}"#, "é😀\n/", false, nil),
            (#"{"user_id":-1.5E+3}"#, "-1.5E+3", true, nil),
            ("{\"user_id\":\"" + String(repeating: "x", count: 128) + "\"}", String(repeating: "x", count: 128), false, nil),
            ("{\"user_id\":\"" + String(repeating: "😀", count: 64) + "\"}", String(repeating: "😀", count: 64), false, nil),
        ]
        for (json, userID, isNumber, userInfo) in cases {
            let parsed = try PresenceChannelData(parsing: json)
            #expect(parsed.userID == userID)
            #expect(parsed.userIDIsNumber == isNumber)
            #expect(parsed.userInfoJSON == userInfo)
            let authorization = try signer.authorizeChannel(socketID: "1.1", channelName: "presence-x", channelData: json)
            #expect(authorization.channelData == json)
        }
    }

    @Test func nonPresenceChannelDataIsOpaque() throws {
        // As in the pusher-http-node vector: encrypted (and private, public) channels may carry any channel_data.
        let authorization = try signer.authorizeChannel(socketID: "1.1", channelName: "private-encrypted-x", channelData: #""foo""#)
        #expect(authorization.channelData == #""foo""#)
        #expect(authorization.sharedSecret != nil)
        #expect(signer.verifyChannelAuth(auth: authorization.auth, socketID: "1.1", channelName: "private-encrypted-x", channelData: #""foo""#))
        #expect(!signer.verifyChannelAuth(auth: authorization.auth, socketID: "1.1", channelName: "private-encrypted-x"))
    }

    // MARK: User data

    @Test(arguments: ["", "[]", #""id""#, #"{"id":"1""#, "nul", #"{"id":"1"}}"#])
    func malformedUserData(_ userData: String) {
        #expect(throws: SigningError.invalidUserData) { try signer.authenticateUser(socketID: "1.1", userData: userData) }
    }

    @Test(arguments: ["{}", #"{"id":""}"#, #"{"id":1}"#, #"{"id":null}"#, #"{"user_id":"1"}"#, #"{"id":"1","id":"2"}"#])
    func unusableUserDataIDs(_ userData: String) {
        #expect(throws: SigningError.invalidUserDataID) { try signer.authenticateUser(socketID: "1.1", userData: userData) }
    }

    @Test func userDataIsParsed() throws {
        let data = try PusherUserData(parsing: #"{"user_info":{"name":"Zoë"},"id":"u\"1","watchlist":["a"]}"#)
        #expect(data.id == "u\"1")
        #expect(data.serverToUserChannelName == "#server-to-user-u\"1")
        let authentication = try signer.authenticateUser(socketID: "5.6", userData: #"{"id":"42","user_info":{"name":"Zoë"}}"#)
        #expect(authentication.userData == #"{"id":"42","user_info":{"name":"Zoë"}}"#)
        #expect(authentication.auth.hasPrefix("app-key:"))
        #expect(authentication.jsonString == #"{"auth":"\#(authentication.auth)","user_data":"{\"id\":\"42\",\"user_info\":{\"name\":\"Zoë\"}}"}"#)
    }

    // MARK: Errors

    @Test func errorCodesAreStableAndMessagesNeverLeakTheSecret() {
        let secret = "top-secret-value"
        let all: [SigningError] = [
            .invalidKey, .emptySecret, .invalidAppID, .invalidMasterKey, .missingMasterKey, .invalidSocketID,
            .emptyChannelName, .invalidChannelName, .channelNameTooLong(length: 201, limit: 200), .serverToUserChannel,
            .missingChannelData, .invalidChannelData, .invalidPresenceUserID, .invalidUserData, .invalidUserDataID,
            .malformedAuth, .reservedParameter("auth_key"), .duplicateParameter("info"), .invalidParameterName("Info"),
            .ambiguousParameter("info"), .malformedQuery, .missingParameter("auth_key"),
            .unknownKey, .unsupportedAuthVersion, .invalidTimestamp, .expiredTimestamp, .futureTimestamp,
            .bodyMD5Mismatch, .invalidSignature,
        ]
        #expect(Set(all.map(\.code)).count == all.count)
        for error in all {
            #expect(error.qualifiedCode == "signing.\(error.code.rawValue)")
            #expect(!error.message.isEmpty)
            #expect(!error.message.contains(secret))
            #expect(error.description == "\(error.qualifiedCode): \(error.message)")
        }
        #expect(SigningError.invalidSocketID.qualifiedCode == "signing.invalidSocketID")
    }

    // MARK: JSON responses

    @Test func jsonResponsesAreDeterministicAndParse() throws {
        let channelData = "{\"user_id\":\"a/b\",\"user_info\":{\"n\":\"é\\n\u{7f}\"}}"
        let presence = try signer.authorizeChannel(socketID: "1.1", channelName: "presence-x", channelData: channelData)
        let json = presence.jsonString
        #expect(json.hasPrefix(#"{"auth":"app-key:"#))
        #expect(json.hasSuffix(#","channel_data":"{\"user_id\":\"a/b\",\"user_info\":{\"n\":\"é\\n\#u{7f}\"}}"}"#))
        let reparsed = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: String]
        #expect(reparsed == presence.jsonObject)

        let encrypted = try signer.authorizeChannel(socketID: "1.1", channelName: "private-encrypted-x", channelData: "\u{1}\t")
        let keys = try #require(JSONSerialization.jsonObject(with: Data(encrypted.jsonString.utf8)) as? [String: String])
        #expect(keys == encrypted.jsonObject)
        #expect(encrypted.jsonString.contains(#""channel_data":"\u0001\t","shared_secret":""#))

        let decoded = try JSONDecoder().decode(ChannelAuthorization.self, from: Data(json.utf8))
        #expect(decoded == presence)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        #expect(String(decoding: try encoder.encode(encrypted), as: UTF8.self) == encrypted.jsonString)
    }
}
