/// imgbench's own version, written into reports and the User-Agent.
public enum ImageBenchVersion {
    public static let current = "0.2.0"
}
