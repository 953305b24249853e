"""The study: the plan a config describes (`plan`, `config`), the data it runs on (`simulate`,
`realdata`), the evaluation of selected sets, aggregation over replicates, the findings tables,
the figures, and the code hashes that decide which jobs rerun (`provenance`). `single_run` is
a study of one data set in one process, behind `costfs select`."""
