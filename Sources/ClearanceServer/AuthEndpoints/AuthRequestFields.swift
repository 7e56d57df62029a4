import ClearanceSigning
import ClearanceWire
import Foundation
import Hummingbird

/// The fields of an auth endpoint request: `socket_id`, and the channel names — one
/// (`channel_name=a`) or batched as the pusher-js-auth plugin sends them
/// (`channel_name[0]=a&channel_name[1]=b`).
///
/// Bodies are form-encoded; a JSON object with the same string members is accepted too.
package struct AuthRequestFields: Sendable, Equatable {
    /// The most channels one batched request may name.
    package static let maxBatchSize = 100

    package let socketID: String
    package let channelNames: [String]
    package let isBatch: Bool

    /// Parses a body; `requireChannel` is false for the user authentication endpoint.
    package init(body: String, contentType: String?, requireChannel: Bool) throws(AuthEndpointError) {
        let fields = try Self.fields(body: body, contentType: contentType)
        if let duplicate = fields.duplicateName { throw .duplicateField(duplicate) }
        guard let socketID = fields.first("socket_id") else { throw .missingSocketID }
        guard SocketIDFormat.isValid(socketID) else { throw .invalidSocketID }
        self.socketID = socketID

        let single = fields.first("channel_name")
        var indexed: [(Int, String)] = []
        var appended: [String] = []
        for field in fields.fields where field.name.hasPrefix("channel_name[") && field.name.hasSuffix("]") {
            let inner = field.name.dropFirst("channel_name[".count).dropLast()
            if inner.isEmpty {
                appended.append(field.value)
            } else if inner.utf8.count <= 4, inner.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let index = Int(inner) {
                indexed.append((index, field.value))
            } else {
                throw .invalidBatch("Batched channel names must be channel_name[0], channel_name[1], …")
            }
        }
        let batched = indexed.sorted { $0.0 < $1.0 }.map(\.1) + appended
        switch (single, batched.isEmpty) {
        case (nil, true):
            guard !requireChannel else { throw .missingChannelName }
            channelNames = []
            isBatch = false
        case let (name?, true):
            channelNames = [name]
            isBatch = false
        case (nil, false):
            guard batched.count <= Self.maxBatchSize else {
                throw .invalidBatch("A batch may name at most \(Self.maxBatchSize) channels.")
            }
            guard Set(batched).count == batched.count else { throw .invalidBatch("A batch names the same channel twice.") }
            channelNames = batched
            isBatch = true
        case (_?, false):
            throw .invalidBatch("Send either channel_name or channel_name[N], not both.")
        }
    }

    private static func fields(body: String, contentType: String?) throws(AuthEndpointError) -> FormFields {
        let isJSON = contentType?.lowercased().hasPrefix("application/json") ?? false
        guard isJSON else {
            let fields = FormFields(parsing: body)
            guard !fields.isMalformed else { throw .malformedBody }
            return fields
        }
        let members: [String: JSONScanner.Member]
        do {
            members = try JSONScanner.parseObjectMembers(body)
        } catch {
            throw .malformedBody
        }
        var pairs: [(name: String, value: String)] = []
        for (name, member) in members.sorted(by: { $0.key < $1.key }) {
            guard let value = member.value.stringValue else { throw .malformedBody }
            pairs.append((name, value))
        }
        return FormFields(pairs)
    }
}
