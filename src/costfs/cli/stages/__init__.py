"""The workflow's stage commands, one module per stage: each reads its input files, calls the
package and writes its outputs atomically (`costfs.cli.storage`). `workflow/rules/data.smk`
calls `simulate`, `realdata` and `costs`; every other rule file calls the module of its own
name (`selection.smk` -> `selection`)."""
