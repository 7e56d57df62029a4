/// Pugpig's `<error status="…" message="…"/>`, with or without a status.
package struct PugpigErrorElement: Sendable, Equatable {
    /// `notrecognised`, `notentitled`, … (nil when the element has none).
    var status: String?
    /// The message for the user, if any.
    var message: String?

    init(status: String?, message: String?) {
        self.status = status
        self.message = message
    }

    init(_ element: PugpigXMLElement) {
        status = element.attributes["status"].flatMap { $0.isEmpty ? nil : $0 }
        message = element.attributes["message"].flatMap { $0.isEmpty ? nil : $0 } ?? (element.trimmedText.isEmpty ? nil : element.trimmedText)
    }
}
