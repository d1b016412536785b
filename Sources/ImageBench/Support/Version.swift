/// imgbench's own version, written into reports and the User-Agent. Bumped when outputs change:
/// 0.4 added settle time, wait at rest, the policy columns and `--max-decode-mb`.
public enum ImageBenchVersion {
    public static let current = "0.4.0"
}
