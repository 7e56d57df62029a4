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
}
