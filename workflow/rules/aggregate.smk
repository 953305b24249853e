rule aggregate_results:
    input:
        evaluations=STUDY.evaluations(),
        benchmarks=STUDY.benchmarks(),
        costs=[f"results/costs/{name}.npz" for name in PROBLEMS],
    output:
        runs="results/runs.parquet",
        summary="results/summary.parquet",
        timings="results/timings.parquet",
    log:
        "logs/aggregate_results.log",
    benchmark:
        "benchmarks/aggregate_results/job.tsv"
    conda:
        CONDA_ENV
    params:
        # Not derived from the input files, so that changing it reruns the aggregation.
        strategies=config["strategies"],
        subcommand="aggregate",
        arguments=lambda wildcards, input, output: [
            "--evaluations",
            *input.evaluations,
            "--benchmarks",
            *input.benchmarks,
            "--strategies",
            *config["strategies"],
            "--train-fraction",
            REAL["train_fraction"],
            *(
                argument
                for name, path in zip(PROBLEMS, input.costs)
                for argument in ("--costs", f"{name}={path}")
            ),
            "--out-runs",
            output.runs,
            "--out-summary",
            output.summary,
            "--out-timings",
            output.timings,
        ],
        code=stage_code("aggregate"),
    script:
        # In-process: its input lists are too long for a command line (run_costfs.py).
        "../scripts/run_costfs.py"


rule tabulate_findings:
    input:
        unpack(findings_inputs),
    output:
        **{name: f"results/findings/{name}.csv" for name in FINDING_TABLES},
    log:
        "logs/tabulate_findings.log",
    benchmark:
        "benchmarks/tabulate_findings/job.tsv"
    conda:
        CONDA_ENV
    params:
        strategies=" ".join(config["strategies"]),
        common_methods=" ".join(STUDY.common_methods()),
        n_rep=config["n_rep"],
        outputs=lambda wildcards, output: " ".join(
            f"--out {name}={path}" for name, path in output.items()
        ),
        design=lambda wildcards, input: (f"--design {input.design}" if input.get("design") else ""),
        code=stage_code("aggregate"),
    shell:
        "costfs tabulate-findings --runs {input.runs} --timings {input.timings}"
        " {params.design} --n-rep {params.n_rep} --strategies {params.strategies}"
        " --common-methods {params.common_methods} {params.outputs} 2> {log}"


rule recommend_features:
    input:
        unpack(problem_descriptions),
        runs="results/runs.parquet",
    output:
        "results/recommendations.csv",
    log:
        "logs/recommend_features.log",
    benchmark:
        "benchmarks/recommend_features/job.tsv"
    conda:
        CONDA_ENV
    params:
        strategies=" ".join(config["strategies"]),
        problems=problem_arguments,
        code=stage_code("aggregate"),
    shell:
        "costfs recommend-features --runs {input.runs} --strategies {params.strategies}"
        " {params.problems} --out {output} 2> {log}"


rule describe_problems:
    input:
        unpack(problem_descriptions),
    output:
        "results/findings/problems.csv",
    log:
        "logs/describe_problems.log",
    benchmark:
        "benchmarks/describe_problems/job.tsv"
    conda:
        CONDA_ENV
    params:
        problems=problem_arguments,
        code=stage_code("aggregate"),
    shell:
        "costfs describe-problems {params.problems} --out {output} 2> {log}"


rule collect_schedules:
    input:
        lambda wildcards: [
            STUDY.selection_folder(wildcards.method, problem, block)
            for problem in STUDY.method_problems(wildcards.method)
            for block in STUDY.selection_blocks[wildcards.method]
        ],
    output:
        "results/schedules/{method}.parquet",
    log:
        "logs/collect_schedules/{method}.log",
    benchmark:
        "benchmarks/collect_schedules/{method}.tsv"
    conda:
        CONDA_ENV
    params:
        subcommand="collect-schedules",
        arguments=lambda wildcards, input, output: [
            "--method",
            wildcards.method,
            *(
                argument
                for problem, rep in STUDY.runs(wildcards.method)
                for argument in (
                    "--schedule",
                    problem,
                    rep,
                    STUDY.selection_path(wildcards.method, problem, rep, ".artifacts.npz"),
                )
            ),
            "--out",
            output[0],
        ],
        code=lambda wildcards: stage_code("aggregate", wildcards.method),
    script:
        "../scripts/run_costfs.py"


rule record_provenance:
    input:
        unpack(provenance_inputs),
    output:
        "results/provenance.json",
    log:
        "logs/record_provenance.log",
    benchmark:
        "benchmarks/record_provenance/job.tsv"
    conda:
        CONDA_ENV
    params:
        study=as_json(study_identity(config)),
        package_code=PACKAGE_CODE,
        replicates=f"{REPS[0]} {REPS[-1]}",
        inputs=lambda wildcards, input: " ".join(
            f"--input {name}={path}" for name, path in input.items()
        ),
        code=stage_code("aggregate"),
    shell:
        "costfs record-provenance --study {params.study:q} --code {params.package_code}"
        " --replicates {params.replicates} {params.inputs} --out {output} 2> {log}"
