/// One element of a parsed Pugpig answer: its name, attributes, child elements and text.
/// Comments and processing instructions are dropped by the parser.
package struct PugpigXMLElement: Sendable, Equatable {
    package var name: String
    package var attributes: [String: String]
    package var children: [PugpigXMLElement] = []
    package var text = ""

    /// The first child named `name`.
    func child(_ name: String) -> PugpigXMLElement? {
        children.first { $0.name == name }
    }

    /// Every child named `name`, in order.
    func children(_ name: String) -> [PugpigXMLElement] {
        children.filter { $0.name == name }
    }

    /// The text with surrounding whitespace removed.
    var trimmedText: String { text.trimmingCharacters(in: .whitespacesAndNewlines) }
}
