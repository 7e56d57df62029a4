import Foundation

/// What `Tests/Interop/hub_watch.py` (raw frames, signed by the official `pusher` library) printed:
/// one JSON object per line.
package enum HubWatchOutput {
    /// The JSON lines `process` printed that have `member`.
    package static func lines(_ process: ChildProcess, _ member: String) -> [[String: Any]] {
        process.stdout.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }.filter { $0[member] != nil }
    }

    /// The watchlist events `process` printed, as "online:bob" strings.
    package static func watchlist(_ process: ChildProcess) -> [String] {
        lines(process, "watchlist").flatMap { line in
            (line["watchlist"] as? [[String: Any]] ?? []).map { "\($0["name"] as? String ?? "?"):\(($0["user_ids"] as? [String] ?? []).joined(separator: ","))" }
        }
    }

    /// The subscription counts `process` printed.
    package static func counts(_ process: ChildProcess) -> [Int] {
        lines(process, "count").compactMap { $0["count"] as? Int }
    }
}
