/// The format of a Pusher socket id: `^\d+\.\d+$` (ASCII digits, one dot, ASCII digits).
public enum SocketIDFormat: Sendable {
    /// Whether `socketID` matches `^\d+\.\d+$`.
    public static func isValid(_ socketID: String) -> Bool {
        var digitsBeforeDot = 0
        var digitsAfterDot = 0
        var sawDot = false
        return socketID.withUTF8Buffer { bytes in
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"):
                    if sawDot { digitsAfterDot += 1 } else { digitsBeforeDot += 1 }
                case UInt8(ascii: ".") where !sawDot:
                    sawDot = true
                default:
                    return false
                }
            }
            return sawDot && digitsBeforeDot > 0 && digitsAfterDot > 0
        }
    }

    /// Throws ``SigningError/invalidSocketID`` unless `socketID` matches `^\d+\.\d+$`.
    public static func validate(_ socketID: String) throws(SigningError) {
        if !isValid(socketID) { throw .invalidSocketID }
    }
}
