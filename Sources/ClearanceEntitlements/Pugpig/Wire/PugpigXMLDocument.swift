import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Parses a Pugpig answer with Foundation's `XMLParser` (FoundationXML on Linux) into
/// ``PugpigXMLElement``s, refusing hostile documents before and while parsing:
///
/// - a document type declaration of any kind (`<!DOCTYPE`, hence every entity, external or
///   internal: no "billion laughs", no external entity read), which no Pugpig answer has;
/// - a document that is not UTF-8 (where such a declaration could hide from the byte check);
/// - more than ``maximumSize`` bytes, ``maximumDepth`` nested elements or ``maximumElements`` elements.
///
/// External entities are never resolved (`shouldResolveExternalEntities` is off) and any entity
/// or DTD declaration the parser reports aborts the parse.
package enum PugpigXMLDocument {
    /// The largest document read (Pugpig answers are a few hundred bytes; issue lists a few kB).
    static let maximumSize = 1 << 20
    /// The deepest nesting accepted (Pugpig's deepest is 3).
    package static let maximumDepth = 16
    /// The most elements accepted (an issue list of many thousand issues fits).
    package static let maximumElements = 200_000

    /// Why a document was refused.
    package enum Refusal: Error, Equatable, CustomStringConvertible {
        case tooLarge
        case documentTypeDeclaration
        case tooDeep
        case tooManyElements
        case malformed(String)

        package var description: String {
            switch self {
            case .tooLarge: "the document is larger than \(PugpigXMLDocument.maximumSize) bytes"
            case .documentTypeDeclaration: "the document declares a document type or entities (refused)"
            case .tooDeep: "the document nests elements deeper than \(PugpigXMLDocument.maximumDepth)"
            case .tooManyElements: "the document has more than \(PugpigXMLDocument.maximumElements) elements"
            case .malformed(let reason): "the document is not well-formed XML (\(reason))"
            }
        }
    }

    /// The root element of `data`.
    package static func parse(_ data: Data) throws(Refusal) -> PugpigXMLElement {
        guard data.count <= maximumSize else { throw .tooLarge }
        // Pugpig answers are UTF-8; a NUL byte means UTF-16 or UTF-32, where the check below
        // would not see a declaration.
        // Invalid UTF-8 is refused before the parser sees it: FoundationXML traps on an element
        // name that is not valid UTF-8 (found by scripts/fuzz pugpig-xml).
        if data.contains(0) || String(data: data, encoding: .utf8) == nil { throw .malformed("not UTF-8") }
        // Every DTD starts with `<!DOCTYPE`; refusing it outright closes the entity attacks
        // whatever the underlying libxml2 would do with them.
        if data.range(of: Data("<!DOCTYPE".utf8)) != nil || data.range(of: Data("<!ENTITY".utf8)) != nil {
            throw .documentTypeDeclaration
        }
        // FoundationXML crashes on a processing instruction without data (`<?x?>`, found by
        // scripts/fuzz pugpig-xml); no Pugpig answer has one besides the XML declaration.
        if hasProcessingInstruction(data) { throw .malformed("a processing instruction") }
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        parser.shouldProcessNamespaces = false
        let builder = TreeBuilder()
        parser.delegate = builder
        let parsed = parser.parse()
        if let refusal = builder.refusal { throw refusal }
        guard parsed, let root = builder.root else {
            throw .malformed(parser.parserError.map { "\(($0 as NSError).code)" } ?? "no root element")
        }
        return root
    }

    /// Whether `data` holds a `<?…?>` other than an XML declaration (`<?xml` and a space).
    private static let instructionStart = Data("<?".utf8)
    private static let declarationName = Data("xml".utf8)

    private static func hasProcessingInstruction(_ data: Data) -> Bool {
        var rest = data[...]
        while let found = rest.range(of: instructionStart) {
            rest = rest[found.upperBound...]
            let isDeclaration = rest.starts(with: declarationName) && rest.dropFirst(3).first.map { [0x20, 0x09, 0x0A, 0x0D].contains($0) } == true
            if !isDeclaration { return true }
        }
        return false
    }
}

/// Builds the element tree, counting depth and elements, and aborts on any declaration.
private final class TreeBuilder: NSObject, XMLParserDelegate {
    var root: PugpigXMLElement?
    var refusal: PugpigXMLDocument.Refusal?
    private var stack: [PugpigXMLElement] = []
    private var count = 0

    private func refuse(_ parser: XMLParser, _ reason: PugpigXMLDocument.Refusal) {
        if refusal == nil { refusal = reason }
        parser.abortParsing()
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        guard refusal == nil else { return }
        count += 1
        if count > PugpigXMLDocument.maximumElements { return refuse(parser, .tooManyElements) }
        if stack.count >= PugpigXMLDocument.maximumDepth { return refuse(parser, .tooDeep) }
        stack.append(PugpigXMLElement(name: elementName, attributes: attributes))
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        guard refusal == nil, let element = stack.popLast() else { return }
        if stack.isEmpty {
            root = element
        } else {
            stack[stack.count - 1].children.append(element)
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard refusal == nil, !stack.isEmpty else { return }
        stack[stack.count - 1].text += string
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        guard refusal == nil, !stack.isEmpty else { return }
        stack[stack.count - 1].text += String(decoding: CDATABlock, as: UTF8.self)
    }

    // Any declaration means a DTD got through: refuse.
    func parser(_ parser: XMLParser, foundInternalEntityDeclarationWithName name: String, value: String?) {
        refuse(parser, .documentTypeDeclaration)
    }

    func parser(_ parser: XMLParser, foundExternalEntityDeclarationWithName name: String, publicID: String?, systemID: String?) {
        refuse(parser, .documentTypeDeclaration)
    }

    func parser(_ parser: XMLParser, foundUnparsedEntityDeclarationWithName name: String, publicID: String?, systemID: String?, notationName: String?) {
        refuse(parser, .documentTypeDeclaration)
    }

    func parser(_ parser: XMLParser, foundElementDeclarationWithName elementName: String, model: String) {
        refuse(parser, .documentTypeDeclaration)
    }

    func parser(_ parser: XMLParser, resolveExternalEntityName name: String, systemID: String?) -> Data? {
        refuse(parser, .documentTypeDeclaration)
        return nil
    }
}
