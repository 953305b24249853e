rule prepare_method:
    input:
        training_data=lambda wildcards: [
            STUDY.training_path(wildcards.dataset, rep) for rep in block_reps(wildcards)
        ],
    output:
        # One job per block of replicates (the selections' blocks), one file per replicate:
        # rep~<r>.npz.
        directory("results/prepared/{method}/{dataset}/reps~{block}"),
    log:
        "logs/prepare_method/{method}/{dataset}/reps~{block}.log",
    benchmark:
        "benchmarks/prepare_method/{method}/{dataset}/reps~{block}.tsv"
    conda:
        CONDA_ENV
    threads: preparation_threads
    params:
        seed=config["seed"],
        reps=lambda wildcards: " ".join(map(str, block_reps(wildcards))),
        method_params=lambda wildcards: as_json(
            STUDY.method_parameters(wildcards.method, "prepare")
        ),
        engine=config["engine"],
        code=lambda wildcards: stage_code("selection", wildcards.method),
    shell:
        "costfs prepare-method --study-seed {params.seed} --method {wildcards.method}"
        " --dataset {wildcards.dataset} --reps {params.reps} --data {input.training_data}"
        " --params {params.method_params:q} --engine {params.engine} --threads {threads}"
        " --out {output} 2> {log}"


rule select_features:
    input:
        unpack(selection_inputs),
    output:
        # One job per block of replicates (config: selection_replicates_per_job), one
        # selection and its artifacts per replicate: rep~<r>.parquet, rep~<r>.artifacts.npz.
        directory("results/selection/{method}/{problem}/reps~{block}"),
    log:
        "logs/select_features/{method}/{problem}/reps~{block}.log",
    benchmark:
        "benchmarks/select_features/{method}/{problem}/reps~{block}.tsv"
    conda:
        CONDA_ENV
    threads: selection_threads
    params:
        seed=config["seed"],
        # One param for all that depends on the run (fewer functions for Snakemake to call
        # per job: a paper-scale study plans 1,540 of these jobs).
        run=selection_arguments,
        engine=config["engine"],
        code=lambda wildcards: stage_code("selection", wildcards.method),
    shell:
        "costfs select-features --study-seed {params.seed} --method {wildcards.method}"
        " --data {input.training_data} --costs {input.costs} {params.run}"
        " --engine {params.engine} --threads {threads} --out {output} 2> {log}"
