print("gather-bench")
