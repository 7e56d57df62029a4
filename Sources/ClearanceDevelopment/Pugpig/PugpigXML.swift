import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// The development server's XML answers, written with Foundation's `XMLElement` (which escapes).
enum PugpigXML {
    static func token(_ token: String, globalAuthPassword: String?) -> String {
        let element = XMLElement(name: "token", stringValue: token)
        if let globalAuthPassword { element.setAttributesWith(["global_auth_password": globalAuthPassword]) }
        return document(element)
    }

    static func error(status: String?, message: String) -> String {
        document(errorElement(status: status, message: message))
    }

    static func subscription(state: String, message: String, categories: [(scheme: String, value: String)], issues: [String]?) -> String {
        let root = XMLElement(name: "subscription")
        root.setAttributesWith(["state": state, "message": message])
        // Pugpig's answers may carry comments anywhere; clients must ignore them.
        if let comment = XMLNode.comment(withStringValue: " development subscription service ") as? XMLNode { root.addChild(comment) }
        if !categories.isEmpty {
            let info = XMLElement(name: "userinfo")
            for category in categories {
                let element = XMLElement(name: "category")
                element.setAttributesWith(["scheme": category.scheme, "value": category.value])
                info.addChild(element)
            }
            root.addChild(info)
        }
        if let issues {
            let list = XMLElement(name: "issues")
            for issue in issues { list.addChild(XMLElement(name: "issue", stringValue: issue)) }
            root.addChild(list)
        }
        return document(root)
    }

    static func credentials(userID: String, password: String, headers: [(name: String, value: String)]) -> String {
        let root = XMLElement(name: "credentials")
        root.addChild(XMLElement(name: "userid", stringValue: userID))
        root.addChild(XMLElement(name: "password", stringValue: password))
        for header in headers {
            let element = XMLElement(name: "header", stringValue: header.value)
            element.setAttributesWith(["name": header.name])
            root.addChild(element)
        }
        return document(root)
    }

    static func credentialsError(status: String?, message: String) -> String {
        let root = XMLElement(name: "credentials")
        root.addChild(errorElement(status: status, message: message))
        return document(root)
    }

    static func signedOut() -> String {
        document(XMLElement(name: "signed_out"))
    }

    private static func errorElement(status: String?, message: String) -> XMLElement {
        let element = XMLElement(name: "error")
        var attributes = ["message": message]
        if let status { attributes["status"] = status }
        element.setAttributesWith(attributes)
        return element
    }

    private static func document(_ root: XMLElement) -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + root.xmlString + "\n"
    }
}
