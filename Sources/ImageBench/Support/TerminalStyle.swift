import Foundation

/// What a terminal may be sent: bold only where colour is welcome (a terminal, `NO_COLOR` unset
/// or empty, `TERM` not `dumb`: no-color.org), a line redrawn in place only on a terminal that
/// can move its cursor (not `TERM=dumb`).
public enum TerminalStyle {
    public static func allowsBold(_ descriptor: Int32, environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        allowsRedraw(descriptor, environment: environment) && (environment["NO_COLOR"] ?? "").isEmpty
    }

    public static func allowsRedraw(_ descriptor: Int32, environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        isatty(descriptor) == 1 && environment["TERM"] != "dumb"
    }
}
