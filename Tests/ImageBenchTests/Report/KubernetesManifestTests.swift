import Foundation
import Testing
@testable import ImageBench

/// docs/kubernetes-shards.yaml, checked as `kubectl apply --dry-run=client` would check its fields
/// (kubectl cannot be installed here): every document against schemas/kubernetes-job.schema.json,
/// and the two Jobs against each other (shard count, directories, the merge's thresholds).
@Suite("The Kubernetes example")
struct KubernetesManifestTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    @Test("both Jobs validate; the merge waits for and joins every shard and holds the result to thresholds; a damaged Job fails")
    func manifest() throws {
        let script = """
        import json, re, sys, yaml, jsonschema
        schema = json.load(open(sys.argv[1]))
        jsonschema.Draft202012Validator.check_schema(schema)
        validator = jsonschema.Draft202012Validator(schema)
        documents = list(yaml.safe_load_all(open(sys.argv[2])))
        jobs = {d["metadata"]["name"]: d for d in documents}
        shards, merge = jobs["imgbench-shards"], jobs["imgbench-merge"]
        count = shards["spec"]["completions"]
        shard_args = shards["spec"]["template"]["spec"]["containers"][0]["args"][0]
        merge_spec = merge["spec"]["template"]["spec"]
        merge_args = merge_spec["containers"][0]["args"][0]
        wait_args = merge_spec["initContainers"][0]["args"][0]
        damaged = json.loads(json.dumps(shards))
        damaged["spec"]["template"]["spec"]["restartPolicy"] = "Always"
        damaged["spec"]["completion"] = 4
        print(json.dumps({
            "errors": [e.message for d in documents for e in validator.iter_errors(d)],
            "names": sorted(jobs),
            "indexed": shards["spec"].get("completionMode"),
            "shard_flag": f"--shard $((JOB_COMPLETION_INDEX + 1))/{count}" in shard_args,
            "merged_all": all(f"/results/shard-{n}" in merge_args for n in range(1, count + 1)),
            "merges": merge_args.startswith("imgbench merge --out /results/merged"),
            "thresholds": re.findall(r"--threshold '([^']*)'", merge_args),
            "waits_for_all": wait_args.startswith("for n in " + " ".join(str(n) for n in range(1, count + 1)) + ";")
                and "until [ -f /results/shard-$n/summary.json ]" in wait_args,
            "volumes_shared": shards["spec"]["template"]["spec"]["volumes"] == merge_spec["volumes"],
            "damaged_errors": len(list(validator.iter_errors(damaged))),
        }))
        """
        let output = try runPython(script, arguments: [Self.root.appendingPathComponent("schemas/kubernetes-job.schema.json").path,
                                                       Self.root.appendingPathComponent("docs/kubernetes-shards.yaml").path])
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], "\(output)")
        #expect(parsed["errors"] as? [String] == [])
        #expect(parsed["names"] as? [String] == ["imgbench-merge", "imgbench-shards"])
        #expect(parsed["indexed"] as? String == "Indexed")
        #expect(parsed["shard_flag"] as? Bool == true && parsed["merged_all"] as? Bool == true && parsed["merges"] as? Bool == true)
        #expect(parsed["waits_for_all"] as? Bool == true, "the init container waits for each shard's summary.json")
        #expect(parsed["volumes_shared"] as? Bool == true)
        #expect(parsed["damaged_errors"] as? Int == 2, "restartPolicy Always and a misspelt field")
        // The merge's thresholds parse as imgbench's own.
        let thresholds = try #require(parsed["thresholds"] as? [String])
        #expect(thresholds.count == 3)
        #expect(throws: Never.self) { try RunThresholds.parse(thresholds) }
    }
}
