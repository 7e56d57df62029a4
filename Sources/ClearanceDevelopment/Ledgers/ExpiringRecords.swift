import Foundation

/// Records that expire, at most a given number of them: a development server's memory of what
/// it issued, bounded by count and by age whatever its clients send. Expired records are dropped
/// as new ones come; past the limit the record that expires first gives way.
struct ExpiringRecords<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private var records: [Key: (value: Value, expiresAt: Date)] = [:]
    /// Keys in the order they expire.
    private var byExpiry: [(key: Key, expiresAt: Date)] = []

    /// The records held, expired or not.
    var storedCount: Int { records.count }

    /// The live records at `now`.
    func count(now: Date) -> Int { records.values.filter { $0.expiresAt > now }.count }

    /// Keeps `value` under `key` until `expiresAt`; drops expired records first, then, at
    /// `limit`, the ones that expire first, which it returns (still live: the caller may need to
    /// remember something of them).
    @discardableResult
    mutating func insert(_ key: Key, _ value: Value, expiresAt: Date, now: Date, limit: Int) -> [Value] {
        dropExpired(now: now)
        if records[key] != nil { forget(key) }
        var evicted: [Value] = []
        while records.count >= max(limit, 1), !byExpiry.isEmpty {
            if let record = records.removeValue(forKey: byExpiry.removeFirst().key) { evicted.append(record.value) }
        }
        records[key] = (value, expiresAt)
        // The first position whose record expires later (binary search: the order is kept).
        var low = 0, high = byExpiry.count
        while low < high {
            let middle = (low + high) / 2
            if byExpiry[middle].expiresAt > expiresAt { high = middle } else { low = middle + 1 }
        }
        byExpiry.insert((key, expiresAt), at: low)
        return evicted
    }

    /// The live value of `key` at `now`.
    func value(_ key: Key, now: Date) -> Value? {
        guard let record = records[key], record.expiresAt > now else { return nil }
        return record.value
    }

    /// Removes `key`; its value when it was live at `now`.
    mutating func remove(_ key: Key, now: Date) -> Value? {
        let live = value(key, now: now)
        if records[key] != nil { forget(key) }
        return live
    }

    private mutating func dropExpired(now: Date) {
        while let first = byExpiry.first, first.expiresAt <= now { records[byExpiry.removeFirst().key] = nil }
    }

    private mutating func forget(_ key: Key) {
        records[key] = nil
        byExpiry.removeAll { $0.key == key }
    }
}
