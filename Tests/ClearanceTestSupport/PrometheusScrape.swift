import Foundation

/// A hub's `/metrics` as Prometheus's own Python text parser (`prometheus_client`, through
/// `Tests/Interop/prometheus_scrape.py`) reads it: a scrape that does not parse fails.
package struct PrometheusScrape: Sendable {
    /// One parsed sample.
    package struct Sample: Sendable {
        /// Its family's name (the parser drops a counter's `_total`).
        package let family: String
        /// Its family's type: `counter`, `gauge`, …
        package let type: String
        /// The sample's own name, as written (`clearance_connections_total`).
        package let name: String
        package let labels: [String: String]
        package let value: Double
    }

    /// The answer's `Content-Type`.
    package let contentType: String
    package let samples: [Sample]

    /// Scrapes `url` (`http://127.0.0.1:PORT/metrics`).
    package static func scrape(_ url: String) async throws -> PrometheusScrape {
        let output = try await PythonPeer.run("prometheus_scrape.py", [url], timeout: .seconds(30))
        guard output.status == 0 else { throw ChildProcess.Failure("prometheus_scrape.py failed: \(output.stderr)") }
        guard let object = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any] else {
            throw ChildProcess.Failure("prometheus_scrape.py printed no JSON object: \(output.stdout)")
        }
        let samples = (object["samples"] as? [[String: Any]] ?? []).map { sample in
            Sample(
                family: sample["family"] as? String ?? "", type: sample["type"] as? String ?? "", name: sample["name"] as? String ?? "",
                labels: sample["labels"] as? [String: String] ?? [:], value: (sample["value"] as? NSNumber)?.doubleValue ?? .nan)
        }
        return PrometheusScrape(contentType: object["content_type"] as? String ?? "", samples: samples)
    }

    /// The value of the sample `name` with exactly `labels`; nil when there is none.
    package func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { $0.name == name && $0.labels == labels }?.value
    }

    /// The type of the family whose sample is `name`.
    package func type(of name: String) -> String? {
        samples.first { $0.name == name }?.type
    }
}
