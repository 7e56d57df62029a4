import ClearanceServer
import ClearanceSigning
import ClearanceWire
import Foundation

extension FuzzTarget {
    /// An auth endpoint body (`AuthRequestFields`: form-encoded, or JSON when the selector's low
    /// bit says so; channel or user authentication by its next bit) and the form codec under it.
    ///
    /// Invariants: a well-formed form encodes and decodes back to the same fields; an accepted
    /// request has a valid socket id and at most `maxBatchSize` distinct channel names.
    static let authForm = FuzzTarget(name: "auth-form", summary: "AuthRequestFields (form and JSON bodies), FormFields round trip") { data throws(FuzzViolation) in
        let input = FuzzInput(data)
        let text = input.text
        let fields = FormFields(parsing: text)
        if !fields.isMalformed {
            for style in [FormFields.Style.form, .rfc3986] {
                let encoded = fields.encoded(style)
                try FuzzViolation.require(FormFields(parsing: encoded) == fields, "form fields do not survive \(style) encoding: \(encoded)")
            }
        }
        let contentType = input.selector & 1 == 0 ? "application/x-www-form-urlencoded" : "application/json; charset=utf-8"
        let requireChannel = input.selector & 2 == 0
        guard let request = try? AuthRequestFields(body: text, contentType: contentType, requireChannel: requireChannel) else { return }
        try FuzzViolation.require(SocketIDFormat.isValid(request.socketID), "accepted socket id \(request.socketID)")
        try FuzzViolation.require(request.channelNames.count <= AuthRequestFields.maxBatchSize, "more than \(AuthRequestFields.maxBatchSize) channels")
        try FuzzViolation.require(Set(request.channelNames).count == request.channelNames.count, "a channel named twice")
        try FuzzViolation.require(!requireChannel || !request.channelNames.isEmpty, "no channel though one is required")
    }
}
