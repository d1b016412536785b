/// imgbench's own version, written into reports and the User-Agent. Bumped when outputs change:
/// 0.4 added settle time, wait at rest, the policy columns and `--max-decode-mb`; 0.5 the rest
/// test, the run-flag catalog's dimensions (transport, filter, coalesce, decode_concurrency,
/// disk_read columns), placeholder row-seconds, `--budget` and compare's pairing; 0.6 display
/// latency's `display_*` names (the `latency_*` ones still read) and the table's one row per cell.
public enum ImageBenchVersion {
    public static let current = "0.8.0"
}
