import ClearanceEntitlements
import Foundation

extension FuzzTarget {
    /// Pugpig's XML answers: `PugpigXMLDocument.parse` (Foundation's `XMLParser`) and the three
    /// answer readers (token, subscription with its snapshot, edition credentials).
    ///
    /// Invariants: an accepted document has no declaration, nests at most `maximumDepth` and
    /// holds at most `maximumElements` elements.
    static let pugpigXML = FuzzTarget(name: "pugpig-xml", summary: "PugpigXMLDocument.parse and the token, subscription and credentials answers") { data throws(FuzzViolation) in
        guard let root = try? PugpigXMLDocument.parse(data) else { return }
        try FuzzViolation.require(data.range(of: Data("<!DOCTYPE".utf8)) == nil, "a document type declaration was accepted")
        var elements = 0
        func walk(_ element: PugpigXMLElement, depth: Int) -> Int {
            elements += 1
            return element.children.map { walk($0, depth: depth + 1) }.max() ?? depth
        }
        let depth = walk(root, depth: 1)
        try FuzzViolation.require(depth <= PugpigXMLDocument.maximumDepth, "accepted nesting \(depth)")
        try FuzzViolation.require(elements <= PugpigXMLDocument.maximumElements, "accepted \(elements) elements")
        _ = PugpigTokenAnswer(root)
        _ = PugpigCredentialsAnswer(root)
        _ = PugpigSubscriptionAnswer(root)?.snapshot(at: Date(timeIntervalSince1970: 1_700_000_000))
    }
}
