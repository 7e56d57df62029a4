import Foundation

/// Splits a fuzz input: its first byte chooses a mode (`selector`), the rest is the payload.
package struct FuzzInput {
    package let selector: UInt8
    package let payload: Data

    package init(_ data: Data) {
        selector = data.first ?? 0
        payload = Data(data.dropFirst())
    }

    /// The payload as text, as a server reads a body (invalid UTF-8 replaced).
    package var text: String { String(decoding: payload, as: UTF8.self) }
}
