import Clearance
import ClearanceServer
import ClearanceWire
import Foundation
import Logging

/// The cluster's channel histories in its PostgreSQL (a `ClusterHistory`): an event is numbered
/// and stored in one statement, committed before the node delivers it or answers the HTTP API,
/// so any node replays it, also after the node that took it died. Apps and channels are named by
/// their HMAC under the cluster key and events sealed with it (`BackplaneSeal`, bound to their
/// channel), as everything else the cluster stores.
///
/// Events go through one connection, reads and upkeep through another: a slow purge never holds
/// an event up.
final class PostgresHistory: ClusterHistory {
    private let writer: BackplaneConnection
    private let reader: BackplaneConnection
    private let seal: BackplaneSeal
    private let key: BackplaneClusterKey
    private let logger: Logger

    /// The least time a stream with no event and no subscriber is kept (nodes touch their
    /// subscribed channels every 5 s, whatever an app's `ttl`).
    static let minimumIdle: Double = 30

    init(configuration: PostgresBackplaneConfiguration, logger: Logger) {
        writer = BackplaneConnection(configuration: configuration, id: 6, logger: logger)
        reader = BackplaneConnection(configuration: configuration, id: 7, logger: logger)
        seal = BackplaneSeal(key: configuration.clusterKey, namespace: configuration.namespace)
        key = configuration.clusterKey
        self.logger = logger
    }

    func append(
        _ frame: String, appID: String, channel: String, excluding: String?, keeping configuration: ChannelHistoryConfiguration
    ) async throws -> HistoryPosition {
        let channelKey = key.name(appID + "\n" + channel)
        let sealed = seal.seal((excluding ?? "") + "\n" + frame, node: "history " + channelKey, sequence: 0, sentAt: Date(), carrier: .storedPayload)
        let (appKey, stream, size, logger) = (key.name(appID), Self.newStream(), configuration.size, logger)
        do {
            let (name, serial) = try await writer.run { schema, connection in
                try await schema.appendHistory(
                    appKey: appKey, channelKey: channelKey, newStream: stream, sealed: sealed, size: size, on: connection, logger: logger)
            }
            return HistoryPosition(stream: name, serial: Int(serial))
        } catch {
            logger.warning("backplane.history.unavailable", metadata: ["reason": "\(BackplaneLink.describe(error))"])
            throw error
        }
    }

    func read(appID: String, channel: String, after: HistoryPosition?, keeping configuration: ChannelHistoryConfiguration) async throws
        -> ClusterHistoryRead
    {
        let (appKey, channelKey, stream, logger) = (key.name(appID), key.name(appID + "\n" + channel), Self.newStream(), logger)
        do {
            return try await reader.run { schema, connection in
                let (name, last) = try await schema.historyPosition(appKey: appKey, channelKey: channelKey, newStream: stream, on: connection, logger: logger)
                let position = HistoryPosition(stream: name, serial: Int(last))
                guard let after, after.stream == name, after.serial < last else { return ClusterHistoryRead(position: position, events: []) }
                let rows = try await schema.historyEvents(
                    channelKey: channelKey, stream: name, after: Int64(after.serial), upTo: last, ttl: configuration.ttl, on: connection, logger: logger)
                return ClusterHistoryRead(position: position, events: rows.compactMap { self.open($0.sealed, serial: Int($0.serial), channelKey: channelKey) })
            }
        } catch {
            logger.warning("backplane.history.unavailable", metadata: ["reason": "\(BackplaneLink.describe(error))"])
            throw error
        }
    }

    func maintain(_ settings: ChannelHistory.Settings, subscribed: [ChannelTable.Key]) async throws -> [ChannelTable.Key: HistoryPosition] {
        let logger = logger
        let touched = Dictionary(grouping: subscribed, by: \.appID)
        var positions: [ChannelTable.Key: HistoryPosition] = [:]
        for (appID, configuration) in settings.apps.sorted(by: { $0.key < $1.key }) {
            let appKey = key.name(appID)
            let channels = Dictionary((touched[appID] ?? []).map { (key.name(appID + "\n" + $0.name), $0) }, uniquingKeysWith: { first, _ in first })
            let (ttl, idle, maxBytes) = (configuration.ttl, max(configuration.ttl, Self.minimumIdle), settings.maxBytesPerApp)
            let rows = try await reader.run { schema, connection in
                let rows = try await schema.touchHistory(appKey: appKey, channelKeys: Array(channels.keys), on: connection, logger: logger)
                try await schema.purgeHistory(appKey: appKey, ttl: ttl, idle: idle, maxBytes: maxBytes, on: connection, logger: logger)
                return rows
            }
            for (channelKey, row) in rows {
                if let channel = channels[channelKey] { positions[channel] = HistoryPosition(stream: row.stream, serial: Int(row.serial)) }
            }
        }
        return positions
    }

    /// Closes the connections.
    func close() async {
        await writer.close()
        await reader.close()
    }

    /// A new stream's name: random, so that a database reset (or a channel that expired whole)
    /// never gives an old name again.
    private static func newStream() -> String {
        var generator = SystemRandomNumberGenerator()
        return String(generator.next() & 0xFFFF_FFFF_FFFF_FFFF, radix: 36)
    }

    /// An event row's frame and excluded socket; nil (logged) for one that does not open with the
    /// cluster key or belongs to another channel.
    private func open(_ sealed: String, serial: Int, channelKey: String) -> ClusterHistoryRead.Event? {
        guard let envelope = try? seal.open(sealed, node: "history " + channelKey, carrier: .storedPayload),
              let newline = envelope.body.firstIndex(of: "\n")
        else {
            logger.warning("backplane.message.rejected", metadata: ["reason": "a history event does not open with the cluster key"])
            return nil
        }
        let excluding = String(envelope.body[..<newline])
        return ClusterHistoryRead.Event(
            serial: serial, frame: String(envelope.body[envelope.body.index(after: newline)...]), excluding: excluding.isEmpty ? nil : excluding)
    }
}
