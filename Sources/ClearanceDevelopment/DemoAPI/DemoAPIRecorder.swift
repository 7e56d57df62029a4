import Hummingbird

/// Counts a request to one of the demo API's routes before anything may refuse it (the
/// customer-token middleware answers 401 without reaching the route).
struct DemoAPIRecorder<Context: RequestContext>: RouterMiddleware {
    let route: String
    let stats: DemoAPIStats

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        await stats.record(route, hadAuthorization: request.headers[.authorization] != nil)
        return try await next(request, context)
    }
}
