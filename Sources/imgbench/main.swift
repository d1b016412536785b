import ImageBench
