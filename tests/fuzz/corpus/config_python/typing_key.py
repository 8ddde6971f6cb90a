import coreai_opt
c = QuantizerConfig(module_name_configs={"lay