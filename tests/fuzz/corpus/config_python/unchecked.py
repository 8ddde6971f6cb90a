from coreai_opt import QuantizerConfig
c = QuantizerConfig(module_name_configs={f"{x}": None, r"a\.b": None, x: None})
c.only_for([nn.Linear, "a"]).without(nn.Conv2d)
