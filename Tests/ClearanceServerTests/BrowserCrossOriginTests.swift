import Clearance
import ClearanceDevelopment
import ClearanceTestSupport
import Foundation
import Hummingbird
import Testing

/// What a new user tries first, in a real browser: a page served from one origin (a loopback
/// port) uses `clearance serve --development` on another, as pusher-js does it: a WebSocket to
/// `/app/{key}`, then an XHR `POST` with an `Authorization` header to the hub's own
/// `/pusher/auth` (so a CORS preflight), then `pusher:subscribe` with the signature. From an
/// allowed origin every step succeeds and the page receives what the app triggers; from another
/// origin the browser is refused at the upgrade (403) and blocks the auth answer (preflight 403).
///
/// The page script speaks the protocol with the browser's own `WebSocket` and `XMLHttpRequest`,
/// the two APIs pusher-js 8.6 uses for this in a browser (its default channel authorizer is an
/// XHR POST of `socket_id` and `channel_name`, with the configured headers).
@Suite("A browser page on another origin uses the hub (headless Chromium)", .timeLimit(.minutes(3)))
struct BrowserCrossOriginTests {
    /// What the pages reported, in order (`<page>:<what>`).
    private final class Reports: Sendable {
        let lines = Locked([String]())
        var all: [String] { lines.withLock { $0 } }
        func contains(_ line: String) -> Bool { all.contains(line) }
    }

    private static func page(hubPort: Int, label: String) -> String {
        """
        <!doctype html><meta charset="utf-8"><title>\(label)</title>
        <script>
        const hub = "127.0.0.1:\(hubPort)";
        function report(what) { fetch("/report?page=\(label)&what=" + encodeURIComponent(what)); }
        function authorize(socketID, channel, done) {
          // As pusher-js's default channel authorizer: XHR POST, form body, the configured headers.
          const xhr = new XMLHttpRequest();
          xhr.open("POST", "http://" + hub + "/pusher/auth", true);
          xhr.setRequestHeader("Content-Type", "application/x-www-form-urlencoded");
          xhr.setRequestHeader("Authorization", "Bearer alice-token");
          xhr.onload = () => done(xhr.status === 200 ? JSON.parse(xhr.responseText).auth : null, "status " + xhr.status);
          xhr.onerror = () => done(null, "blocked");
          xhr.send("socket_id=" + encodeURIComponent(socketID) + "&channel_name=" + encodeURIComponent(channel));
        }
        authorize("1.2", "private-probe", (auth, why) => report(auth ? "probe-auth-ok" : "probe-auth-" + why));
        const ws = new WebSocket("ws://" + hub + "/app/test-key?protocol=7&client=js&version=8.6.0");
        ws.onclose = (event) => report("websocket-closed:" + event.code);
        ws.onmessage = (message) => {
          const frame = JSON.parse(message.data);
          if (frame.event === "pusher:connection_established") {
            report("connected");
            authorize(JSON.parse(frame.data).socket_id, "private-orders", (auth, why) => {
              if (!auth) return report("auth-" + why);
              ws.send(JSON.stringify({event: "pusher:subscribe", data: {channel: "private-orders", auth: auth}}));
            });
          } else if (frame.event === "pusher_internal:subscription_succeeded") {
            report("subscribed");
          } else if (frame.event === "created") {
            report("event:" + frame.data);
          }
        };
        </script>
        """
    }

    /// Serves the page (`/?hub=PORT&label=…`) and takes the page's reports.
    private static func pageServer(_ reports: Reports) async throws -> RunningServer {
        let router = Router()
        router.get("/") { request, _ -> Response in
            let hubPort = request.uri.queryParameters.get("hub").flatMap { Int($0) } ?? 0
            let label = request.uri.queryParameters.get("label").map { String($0) } ?? "page"
            return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
                            body: ResponseBody(byteBuffer: ByteBuffer(string: Self.page(hubPort: hubPort, label: label))))
        }
        router.get("/report") { request, _ -> HTTPResponse.Status in
            let page = request.uri.queryParameters.get("page").map { String($0) } ?? "?"
            let what = request.uri.queryParameters.get("what").map { String($0) } ?? "?"
            reports.lines.withLock { $0.append("\(page):\(what)") }
            return .noContent
        }
        return try await RunningServer.start(router, logger: TestHub.quietLogger)
    }

    /// In each installed browser: Debian's `chromium-headless-shell` and its desktop `chromium`
    /// (always `--headless`) when both are there, as on a machine where `scripts/test` ran.
    @Test func aPageOfAnAllowedOriginSubscribesThroughTheHubsOwnAuthEndpointAndAnotherOriginIsBlocked() async throws {
        for browser in try HeadlessChromium.executables() {
            let reports = Reports()
            let allowedSite = try await Self.pageServer(reports)
            let otherSite = try await Self.pageServer(reports)
            try await withCleanup {
                try await ServeProcess.with(
                    limits: TestHub.limits(), development: true, adjustApp: { $0.allowedOrigins = ["http://127.0.0.1:\(allowedSite.port)"] }
                ) { serve in
                    do {
                        try await browse(serve, in: browser, allowedSite: allowedSite, otherSite: otherSite, reports: reports)
                    } catch {
                        throw ChildProcess.Failure("\(browser.path): \(error)")
                    }
                }
            } cleanup: {
                await allowedSite.stop()
                await otherSite.stop()
            }
        }
    }

    private func browse(_ serve: ServeProcess, in browser: URL, allowedSite: RunningServer, otherSite: RunningServer, reports: Reports) async throws {
        let port = serve.port
        let allowed = try HeadlessChromium.open(URL(string: "http://127.0.0.1:\(allowedSite.port)/?hub=\(port)&label=allowed")!, in: browser)
        try await withCleanup {
            try await waitFor(["allowed:connected", "allowed:probe-auth-ok", "allowed:subscribed"], in: reports)
            try await TestHub.trigger(serve.http, event: "created", channels: ["private-orders"], data: #"{"id":7}"#)
            try await waitFor([#"allowed:event:{"id":7}"#], in: reports)
        } cleanup: { await allowed.close() }

        let other = try HeadlessChromium.open(URL(string: "http://127.0.0.1:\(otherSite.port)/?hub=\(port)&label=other")!, in: browser)
        try await withCleanup {
            try await waitFor(["other:websocket-closed:1006", "other:probe-auth-blocked"], in: reports)
            #expect(!reports.contains("other:connected"))
            try await eventually("the refusal is logged") { serve.process.stderr.contains("hub.origin.refused") }
        } cleanup: { await other.close() }
    }

    /// Waits until the pages reported every line of `expected`; the failure names what they did report.
    private func waitFor(_ expected: [String], in reports: Reports, timeout: Duration = .seconds(45)) async throws {
        do {
            try await eventually("the pages report \(expected)", timeout: timeout) { expected.allSatisfy(reports.contains) }
        } catch {
            throw ChildProcess.Failure("the pages reported \(reports.all), not all of \(expected)")
        }
    }
}
