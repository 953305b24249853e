rule simulate_design:
    output:
        "results/design/simulation.npz",
    log:
        "logs/simulate_design.log",
    benchmark:
        "benchmarks/simulate_design/job.tsv"
    conda:
        CONDA_ENV
    params:
        seed=config["seed"],
        simulation=as_json(
            {
                key: SIMULATION[key]
                for key in (
                    "n_features",
                    "n_informative",
                    "beta_sd",
                    "beta_bound",
                    "n_blocks",
                    "cost_min",
                    "cost_max",
                    "cost_noise_sd",
                )
            }
        ),
        code=stage_code("simulate"),
    shell:
        "costfs simulate-design --study-seed {params.seed} --simulation {params.simulation:q}"
        " --out {output} 2> {log}"


rule simulate_training_data:
    input:
        design="results/design/simulation.npz",
    output:
        "results/data/simulated/{data_type}/rep~{rep}/train.npz",
    log:
        "logs/simulate_training_data/{data_type}/rep~{rep}.log",
    benchmark:
        "benchmarks/simulate_training_data/{data_type}/rep~{rep}.tsv"
    conda:
        CONDA_ENV
    params:
        seed=config["seed"],
        n_rows=SIMULATION["n_train"],
        code=stage_code("simulate"),
    shell:
        "costfs simulate-data --study-seed {params.seed} --design {input.design}"
        " --data-type {wildcards.data_type} --part train-{wildcards.rep} --n-rows {params.n_rows}"
        " --out {output} 2> {log}"


rule simulate_test_data:
    input:
        design="results/design/simulation.npz",
    output:
        "results/data/simulated/{data_type}/test.npz",
    log:
        "logs/simulate_test_data/{data_type}.log",
    benchmark:
        "benchmarks/simulate_test_data/{data_type}.tsv"
    conda:
        CONDA_ENV
    params:
        seed=config["seed"],
        n_rows=SIMULATION["n_test"],
        code=stage_code("simulate"),
    shell:
        "costfs simulate-data --study-seed {params.seed} --design {input.design}"
        " --data-type {wildcards.data_type} --part test --n-rows {params.n_rows}"
        " --out {output} 2> {log}"


rule load_real_dataset:
    input:
        # The data file, where the data set has one: rewriting it reruns the loading.
        lambda wildcards: STUDY.dataset_file(wildcards.dataset) or [],
    output:
        "results/data/real/{dataset}/full.npz",
    log:
        "logs/load_real_dataset/{dataset}.log",
    benchmark:
        "benchmarks/load_real_dataset/{dataset}.tsv"
    conda:
        CONDA_ENV
    params:
        # Only the keys that say how the data set is loaded: its budgets and costs do not
        # change the data.
        source=lambda wildcards: as_json(STUDY.dataset_source(wildcards.dataset)),
        data_dir=f"--data-dir {shlex.quote(REAL['data_dir'])}" if REAL["data_dir"] else "",
        code=stage_code("realdata"),
    shell:
        "costfs load-dataset --name {wildcards.dataset} --source {params.source:q}"
        " {params.data_dir} --out {output} 2> {log}"


rule split_real_data:
    input:
        "results/data/real/{dataset}/full.npz",
    output:
        train="results/data/real/{dataset}/rep~{rep}/train.npz",
        test="results/data/real/{dataset}/rep~{rep}/test.npz",
    log:
        "logs/split_real_data/{dataset}/rep~{rep}.log",
    benchmark:
        "benchmarks/split_real_data/{dataset}/rep~{rep}.tsv"
    conda:
        CONDA_ENV
    params:
        seed=config["seed"],
        train_fraction=REAL["train_fraction"],
        code=stage_code("realdata"),
    shell:
        "costfs split-data --study-seed {params.seed} --dataset {input} --name {wildcards.dataset}"
        " --rep {wildcards.rep} --train-fraction {params.train_fraction}"
        " --out-train {output.train} --out-test {output.test} 2> {log}"


rule draw_costs:
    input:
        unpack(cost_sources),
    output:
        "results/costs/{problem}.npz",
    log:
        "logs/draw_costs/{problem}.log",
    benchmark:
        "benchmarks/draw_costs/{problem}.tsv"
    conda:
        CONDA_ENV
    params:
        seed=config["seed"],
        arguments=cost_arguments,
        code=stage_code("costs"),
    shell:
        "costfs draw-costs --study-seed {params.seed} --problem {wildcards.problem}"
        " {params.arguments} --out {output} 2> {log}"
