import Clearance
import Foundation

/// What the device grant shows the user: go to ``verificationURI`` and enter ``userCode``.
public struct DeviceAuthorizationPrompt: Sendable, Hashable, CustomStringConvertible {
    /// The code the user types. Meant for the user's eyes: print it, do not log it.
    public let userCode: String
    /// Where the user goes.
    public let verificationURI: URL
    /// The verification URI with the code in it, if the server gave one.
    public let verificationURIComplete: URL?
    /// How long the user has.
    public let expiresIn: Duration

    /// The instruction for a terminal.
    public var instruction: String {
        "Open \(verificationURI) and enter the code \(userCode)."
    }

    public var description: String {
        "DeviceAuthorizationPrompt(verificationURI: \(verificationURI), userCode: \(Redactor.mask), expiresIn: \(expiresIn))"
    }
}
