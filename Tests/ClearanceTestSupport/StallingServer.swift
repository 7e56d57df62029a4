import Foundation

/// `Tests/Interop/stalling_server.py`: a server on 127.0.0.1 that stalls after the response head
/// (`/head/…`), after half the body (`/half/…`) or after one chunk (`/drip/…`), and answers at
/// once under `/ok/…` (with a discovery document whose endpoints all stall under
/// `/ok/MODE/.well-known/openid-configuration`). It prints every request it reads.
package struct StallingServer: Sendable {
    /// The running server.
    package let process: ChildProcess
    /// Its port on 127.0.0.1.
    package let port: Int

    /// `http://127.0.0.1:PORT`.
    package var base: String { "http://127.0.0.1:\(port)" }

    /// `base` followed by `path` (which starts with a slash).
    package func url(_ path: String) -> URL { URL(string: base + path)! }

    /// Starts the server and returns once it listens.
    package static func start() async throws -> StallingServer {
        let (process, port) = try await PythonPeer.startListening("stalling_server.py")
        return StallingServer(process: process, port: port)
    }

    /// The requests it read whole, as `METHOD PATH`, in order.
    package var requests: [String] {
        process.stdout.split(separator: "\n").filter { $0.hasPrefix("request ") }.map { String($0.dropFirst("request ".count)) }
    }

    /// Stops it (SIGKILL: it holds nothing).
    package func stop() async {
        await process.stop(.kill)
    }
}

/// Runs `body` with a fresh ``StallingServer``, stopped afterwards whatever happens.
package func withStallingServer<T>(_ body: (StallingServer) async throws -> T) async throws -> T {
    let server = try await StallingServer.start()
    do {
        let result = try await body(server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}
