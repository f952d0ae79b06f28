"""The parts of `scripts/hostile_inputs.py`: model writers (`build`), the process
runner (`runner`), ladders and their verdicts (`ladder`), the families (`cases`,
`ladders`, `corpus`, `python_side`). Standard library only."""
