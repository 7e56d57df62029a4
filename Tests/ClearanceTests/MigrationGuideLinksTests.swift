import ClearanceTestSupport
import Foundation
import Testing

/// Each SDK's migration guide is reachable: linked from its module's DocC landing page (a topic
/// group `scripts/docs` resolves, warnings as errors) and from the README, and compiled by its
/// own test (which checks the article's snippets against the code it runs).
@Suite("Migration guides are linked")
struct MigrationGuideLinksTests {
    struct Guide: Sendable, CustomTestStringConvertible {
        let module: String
        let article: String
        let testTarget: String

        var path: String { "Sources/\(module)/Documentation.docc/\(article).md" }
        var testDescription: String { article }
    }

    static let guides = [
        Guide(module: "ClearanceChannels", article: "ComingFromPusher", testTarget: "ClearanceChannelsTests"),
        Guide(module: "ClearanceEntitlements", article: "ComingFromPugpig", testTarget: "ClearanceEntitlementsTests"),
        Guide(module: "ClearanceBloomreach", article: "ComingFromBloomreachSDK", testTarget: "ClearanceBloomreachTests"),
        Guide(module: "ClearanceOAuth2", article: "ComingFromPodioKit", testTarget: "ClearanceOAuth2Tests"),
    ]

    @Test(arguments: guides)
    func theGuideIsLinkedAndCompiled(_ guide: Guide) throws {
        let article = try DocumentedSnippets.packageFile(guide.path)
        #expect(article.hasPrefix("# Coming from "), "\(guide.path) is an article titled 'Coming from …'")
        #expect(!DocumentedSnippets.swiftBlocks(in: article).isEmpty)
        let landing = try DocumentedSnippets.packageFile("Sources/\(guide.module)/Documentation.docc/\(guide.module).md")
        let topics = try #require(landing.components(separatedBy: "\n## Topics\n").last, "\(guide.module)'s landing page has no topic groups")
        #expect(topics.contains("- <doc:\(guide.article)>"), "\(guide.module)'s landing page does not link \(guide.article)")
        let readme = try DocumentedSnippets.packageFile("README.md")
        #expect(readme.contains("](\(guide.path))"), "README.md does not link \(guide.path)")
        let test = "Tests/\(guide.testTarget)/Guide\(guide.article)Tests.swift"
        let source = try DocumentedSnippets.packageFile(test)
        #expect(source.contains("\"\(guide.path)\""), "\(test) does not check \(guide.path)")
    }
}
