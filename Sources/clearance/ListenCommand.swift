import ArgumentParser
import ClearanceChannels
import ClearanceWire
import Foundation
import HTTPTypes
import Logging

/// `clearance listen`: subscribes to channels and prints their events as JSON lines.
struct ListenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listen",
        abstract: "Subscribe to Pusher channels and print every event as a JSON line until interrupted.",
        discussion: """
            Connects with the Pusher protocol 7 to hosted Pusher (--cluster) or any compatible \
            server (--host/--port), over TLS unless the host is loopback. Private, presence and \
            encrypted channels are authorized by POSTing to --auth-url, with the --header fields. \
            With --user-auth-url it also signs in as the user that endpoint names and prints \
            the user's events and watchlist events.

            Events go to standard output, one JSON object per line (keys sorted); connection \
            states and errors go to standard error. An event is \
            {"channel":"C","data":…,"event":"E"}, with "user_id" for a client event on a presence \
            channel. A server that counts subscriptions sends a channel's subscriber count as the \
            event "pusher:subscription_count" with data {"subscription_count":N}. Watched users \
            who come online are {"user_ids":["b","c"],"watchlist":"online"} (the first such line \
            lists the ones online at sign-in), and "offline" when they go offline.

            After each reconnect, on a hub that keeps a channel's history (clearance serve with \
            the app's "history"), the missed events come once and in order, and standard error \
            gets a line "recovered C", or "not recovered C (why)" when some may be lost (then \
            fetch the state from the app's server); the same answer is the event \
            "clearance:recovery" with data {"recovered":true} or {"recovered":false,"reason":…}.
            """
    )

    @Option(help: "The app key.")
    var key: String

    @Option(help: "Hosted Pusher cluster, e.g. mt1 or eu.")
    var cluster: String?

    @Option(help: "Server host (instead of --cluster).")
    var host: String?

    @Option(help: "Server port (default 443 with TLS, 80 without).")
    var port: Int?

    @Flag(inversion: .prefixedNo, help: "Use TLS (default: yes, except for a loopback host).")
    var tls: Bool?

    @Option(name: .customLong("auth-url"), help: "Channel authorization endpoint for private, presence and encrypted channels.")
    var authURL: String?

    @Option(name: .customLong("user-auth-url"), help: "User authentication endpoint: sign in, and print the user's events and watchlist events too.")
    var userAuthURL: String?

    @Option(name: .customLong("header"), help: "A header for the auth requests, 'Name: value' (repeatable).")
    var headers: [String] = []

    @Argument(help: "The channels to subscribe to.")
    var channels: [String]

    func validate() throws {
        if cluster != nil && host != nil { throw ValidationError("Give --cluster or --host, not both.") }
        if port != nil && host == nil { throw ValidationError("--port needs --host.") }
        if channels.isEmpty { throw ValidationError("Name at least one channel.") }
        _ = try headerFields()
    }

    func run() async throws {
        var options = ChannelClientOptions(
            endpoint: host.map { .host($0, port: port) } ?? .cluster(cluster ?? "mt1"),
            useTLS: tls,
            logger: Logger.silent("clearance.listen")
        )
        let fields = try headerFields()
        do {
            if let authURL {
                options.authorizer = try ServerChannelAuthorizer(endpoint: try url(authURL), headers: fields)
            }
            if let userAuthURL {
                options.userAuthenticator = try ServerUserAuthenticator(endpoint: try url(userAuthURL), headers: fields)
            }
        } catch let error as ChannelAuthorizationError {
            throw ValidationError(error.message)
        }
        let client = ChannelClient(key: key, options: options)
        // Made before the sign-in, so that the first event (who is online now) is not missed.
        let watchlist = userAuthURL != nil ? client.watchlistEvents : nil
        await client.connect()
        var subscribed: [PusherChannel] = []
        for name in channels { subscribed.append(await client.subscribe(name)) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await state in client.states {
                    Self.report(["state": .string(state.description)] + Self.errorFields(state))
                    // The server refused the connection for good (4000–4099): nothing more will come.
                    if case .failed = state { throw ExitCode.failure }
                }
            }
            group.addTask {
                for await rejection in client.serverErrors {
                    Self.report(["error": .string(rejection.qualifiedCode), "message": .string(rejection.message)])
                }
            }
            for channel in subscribed { Self.watch(channel, in: &group) }
            if let watchlist {
                group.addTask {
                    for await event in watchlist {
                        Self.output(["watchlist": .string(event.kind.rawValue), "user_ids": .array(event.userIDs.map(JSONValue.string))])
                    }
                }
            }
            if userAuthURL != nil {
                group.addTask {
                    do {
                        let userChannel = try await client.signIn()
                        Self.report(["signedIn": .string(userChannel.name)])
                        try await withThrowingTaskGroup(of: Void.self) { inner in
                            Self.watch(userChannel, in: &inner)
                            try await inner.waitForAll()
                        }
                    } catch let error as ChannelError {
                        Self.report(["error": .string(error.qualifiedCode), "message": .string(error.message)])
                    } catch {
                        Self.report(["error": .string("channels.signIn"), "message": .string(String(describing: error))])
                    }
                }
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    /// Prints `channel`'s events, state changes and reported problems.
    private static func watch(_ channel: PusherChannel, in group: inout ThrowingTaskGroup<Void, any Error>) {
        group.addTask {
            for await event in channel.events {
                if let recovery = ChannelRecovery(event) {
                    // After a reconnect, on a hub that keeps the channel's history.
                    let text = recovery.isRecovered ? "recovered \(event.channel)" : "not recovered \(event.channel) (\(recovery.reasonText))"
                    FileHandle.standardError.write(Data((text + "\n").utf8))
                }
                var line: [String: JSONValue] = ["channel": .string(event.channel), "event": .string(event.name)]
                if let data = event.data { line["data"] = JSONValue(parsing: data) ?? .string(data) }
                if let userID = event.userID { line["user_id"] = .string(userID) }
                output(line)
            }
        }
        group.addTask {
            for await state in channel.states {
                var line: [String: JSONValue] = ["channel": .string(channel.name), "state": .string(state.description)]
                if case .failed(let error) = state {
                    line["error"] = .string(error.qualifiedCode)
                    line["message"] = .string(error.message)
                    if let status = error.status { line["status"] = .number(String(status)) }
                }
                report(line)
            }
        }
        group.addTask {
            for await error in channel.errors {
                report(["channel": .string(channel.name), "error": .string(error.qualifiedCode), "message": .string(error.message)])
            }
        }
    }

    private static func errorFields(_ state: ConnectionState) -> [String: JSONValue] {
        guard case .failed(let error) = state else { return [:] }
        return ["error": .string(error.qualifiedCode), "message": .string(error.message)]
    }

    /// An event line, on standard output.
    private static func output(_ line: [String: JSONValue]) {
        FileHandle.standardOutput.write(Data((JSONValue.object(line).jsonText + "\n").utf8))
    }

    /// A state or error line, on standard error.
    private static func report(_ line: [String: JSONValue]) {
        FileHandle.standardError.write(Data((JSONValue.object(line).jsonText + "\n").utf8))
    }

    private func url(_ text: String) throws -> URL {
        guard let url = URL(string: text), url.scheme != nil, url.host != nil else {
            throw ValidationError("'\(text)' is not an absolute URL.")
        }
        return url
    }

    private func headerFields() throws -> HTTPFields {
        var fields = HTTPFields()
        for header in headers {
            let parts = header.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, let name = HTTPField.Name(parts[0].trimmingCharacters(in: .whitespaces)) else {
                throw ValidationError("--header must look like 'Name: value'.")
            }
            fields.append(HTTPField(name: name, value: parts[1].trimmingCharacters(in: .whitespaces)))
        }
        return fields
    }
}

private func + (lhs: [String: JSONValue], rhs: [String: JSONValue]) -> [String: JSONValue] {
    lhs.merging(rhs) { _, new in new }
}
