/// One line of output from `Tests/Interop/pusher_signatures.py`: what the Python library produced.
struct InteropResult: Decodable, Sendable {
    var id: Int
    var auth: String?
    var channelData: String?
    var sharedSecret: String?
    var userData: String?
    var responseJSON: String?
    var method: String?
    var path: String?
    var body: String?
    var queryParams: [String: String]?
    var stringToSign: String?
    var stringToSignWithoutBodyMD5: String?
    var signatureWithoutBodyMD5: String?

    enum CodingKeys: String, CodingKey {
        case id, auth, method, path, body
        case channelData = "channel_data"
        case sharedSecret = "shared_secret"
        case userData = "user_data"
        case responseJSON = "response_json"
        case queryParams = "query_params"
        case stringToSign = "string_to_sign"
        case stringToSignWithoutBodyMD5 = "string_to_sign_without_body_md5"
        case signatureWithoutBodyMD5 = "signature_without_body_md5"
    }
}
