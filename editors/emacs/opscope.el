;;; opscope.el --- opscope language server for compression and fine-tuning configs -*- lexical-binding: t; -*-

;; Completion, hover and diagnostics in coreai-opt compression configs (YAML/JSON), PEFT
;; configs (LoraConfig calls, adapter_config.json, axolotl / LLaMA-Factory YAML) and
;; llm-compressor recipes, oneshot scripts and compressed-tensors checkpoints, computed
;; from the real PyTorch model by `opscope lsp'.  Works with eglot (Emacs 28 + elpa-eglot, or
;; Emacs 29+) and with lsp-mode (see opscope-lsp-mode.el).
;;
;;   (add-to-list 'load-path "/path/to/opscope/editors/emacs")
;;   (require 'opscope)
;;   (opscope-eglot-setup)          ; eglot starts for compression configs automatically

;;; Code:

(require 'cl-lib)
(require 'project)

(defgroup opscope nil
  "The opscope language server for model-compression configs."
  :group 'tools)

(defcustom opscope-program "opscope"
  "The opscope binary (a name on `exec-path' or an absolute file name)."
  :type 'string)

(defcustom opscope-initialization-options nil
  "Options sent to the server, overriding opscope.yaml.
A plist with any of :model (archive, index file or Python target), :mode (\"graph\" or
\"eager\"), :compressor (\"quantizer\", \"kmeans_palettizer\", \"magnitude_pruner\"),
:inputs (a vector of input specs) and :python (the interpreter that exports a Python target)."
  :type 'plist)

;; Which buffers are configs: the same rules as the VS Code extension's (configDetection.ts).
(defconst opscope-config-file-names '("opscope.yaml" "adapter_config.json")
  "Files opscope serves by their name alone: the project file and the adapter config PEFT saves.")

(defconst opscope-project-file "opscope.yaml"
  "The project file naming the model; its folder is the project root.")

(defun opscope--root-key (&rest names)
  "A YAML root key among NAMES (column 0, optionally quoted) and its colon."
  (concat "^[\"']?" (regexp-opt names) "[\"']?[ \t]*:"))

(defun opscope--root-key-is (name value)
  "A YAML root key NAME whose value is the regexp VALUE (optionally quoted, then a comment)."
  (concat (opscope--root-key name) "[ \t]*[\"']?" value "[\"']?[ \t]*\\(?:#.*\\)?$"))

(defun opscope--python-import (module)
  "A Python line importing MODULE (`import m', `from m.sub import x')."
  (concat "^[ \t]*\\(?:from[ \t]+" module "\\(?:\\.[[:alnum:]_.]*\\)?[ \t]+import\\_>"
          "\\|import[ \t]+" module "\\_>\\)"))

(defun opscope--python-use (&rest classes)
  "One of CLASSES called or used (`QuantizerConfig.from_dict') in a line's code, not its comment:
a script that only mentions a config class in a comment is not a config."
  (concat "^[^#\n]*\\_<" (regexp-opt classes) "[ \t]*[.(]"))

(defconst opscope--llmcompressor-modifiers
  '("QuantizationModifier" "GPTQModifier" "AWQModifier" "SmoothQuantModifier" "SparseGPTModifier")
  "llm-compressor's modifiers: YAML keys of its recipes, or classes its scripts call.")

(defconst opscope-config-rules
  `((yaml
     ;; coreai-opt.  A copy of kCompressors (core/dialects/coreai/tables/src/compressors.cpp); tests/editors/compressor_tables.py: root keys.
     ,(opscope--root-key "quantization_config" "kmeans_palettization_config" "magnitude_pruning_config")
     ;; PEFT through axolotl and LLaMA-Factory
     ,(opscope--root-key "lora_target_modules" "lora_target_linear" "lora_target")
     ,(opscope--root-key-is "adapter" "q?lora")
     ,(opscope--root-key-is "finetuning_type" "lora")
     ;; llm-compressor recipes: a modifier key, at the root or under a stage and its group
     ,(concat "^[ \t]*[\"']?" (regexp-opt opscope--llmcompressor-modifiers) "[\"']?[ \t]*:"))
    ;; coreai-opt: the quoted key (nesting is not checked).  PEFT's JSON is adapter_config.json;
    ;; a compressed-tensors checkpoint's config.json has quantization_config too.
    (json
     ;; A copy of kCompressors (core/dialects/coreai/tables/src/compressors.cpp); tests/editors/compressor_tables.py: root keys.
     ,(concat "\"" (regexp-opt '("quantization_config" "kmeans_palettization_config"
                                 "magnitude_pruning_config"))
              "\"[ \t\n]*:"))
    (python
     ;; coreai-opt.  A copy of kCompressors (core/dialects/coreai/tables/src/compressors.cpp); tests/editors/compressor_tables.py: config classes.
     ,(opscope--python-import "coreai_opt")
     ,(opscope--python-use "QuantizerConfig" "KMeansPalettizerConfig" "MagnitudePrunerConfig")
     ;; PEFT
     ,(opscope--python-import "peft")
     ,(opscope--python-use "LoraConfig" "LoHaConfig" "LoKrConfig" "AdaLoraConfig"
                           "IA3Config" "OFTConfig" "BOFTConfig" "VeraConfig")
     ;; llm-compressor: an import (oneshot scripts), or a modifier called
     ,(opscope--python-import "llmcompressor")
     ,(apply #'opscope--python-use opscope--llmcompressor-modifiers)))
  "Per kind of buffer, regexps of which one match in the text makes the buffer a config.")

(defvar opscope-status nil
  "The last `opscope/status' notification, a plist (:state :model :ops :message).")

(defvar-local opscope--config-cache nil
  "(TICK . VALUE): `opscope-config-buffer-p' at buffer modification TICK.")

(defun opscope-config-buffer-p ()
  "Non-nil when the current buffer is a config opscope serves.
By its name (`opscope-config-file-names') or by its text (`opscope-config-rules'): a YAML/JSON
compression config, a Python script using coreai-opt or PEFT, axolotl / LLaMA-Factory LoRA YAML."
  (let ((tick (buffer-chars-modified-tick)))
    (if (eql (car opscope--config-cache) tick)
        (cdr opscope--config-cache)
      (cdr (setq opscope--config-cache (cons tick (opscope--config-buffer-scan)))))))

(defun opscope--python-buffer-p ()
  (derived-mode-p 'python-mode 'python-ts-mode))

(defun opscope--buffer-rules ()
  "The rules for the current buffer: Python's, else YAML's and JSON's (JSON is YAML too)."
  (if (opscope--python-buffer-p)
      (alist-get 'python opscope-config-rules)
    (append (alist-get 'yaml opscope-config-rules) (alist-get 'json opscope-config-rules))))

(defun opscope--config-buffer-scan ()
  (or (and buffer-file-name
           (member (file-name-nondirectory buffer-file-name) opscope-config-file-names)
           t)
      (let ((rules (opscope--buffer-rules))
            (case-fold-search nil)
            (bound (min (point-max) 200000)))
        (save-excursion
          (save-restriction
            (widen)
            (cl-some (lambda (rule) (goto-char (point-min)) (re-search-forward rule bound t))
                     rules))))
      nil))

(defcustom opscope-eglot-python nil
  "Non-nil: eglot serves Python training scripts that use coreai-opt or PEFT with opscope.
eglot runs one server per buffer, so in those buffers (and only those: other Python files
keep your Python server) opscope then replaces your Python server.  lsp-mode
\(opscope-lsp-mode.el) runs opscope beside it instead."
  :type 'boolean
  :group 'opscope)

(defun opscope-project-find (dir)
  "A project.el project rooted at the nearest opscope.yaml above DIR.
A Python buffer in DIR belongs to it only when opscope serves it (`opscope-eglot-python' and
a config): eglot runs one server per project and major mode, so the other Python files
must stay in their own project, with your Python server.  A served config without an
opscope.yaml above (a PEFT config names its own base model) is rooted at its own folder, as
in Neovim, not at your version-control root."
  (let* ((here (and buffer-file-name (file-equal-p (file-name-directory buffer-file-name) dir)))
         (served (and here (or opscope-eglot-python (not (opscope--python-buffer-p)))
                      (opscope-config-buffer-p)))
         (root (or (locate-dominating-file dir opscope-project-file) (and served dir))))
    (and root
         (or served (not here) (not (opscope--python-buffer-p)))
         (cons 'opscope (file-name-as-directory (expand-file-name root))))))

(cl-defmethod project-root ((project (head opscope)))
  (cdr project))

(defun opscope-status-string ()
  "A short text for the mode line: \"resnet · 71 ops\", \"opscope: loading\"..."
  (when opscope-status
    (let ((model (file-name-nondirectory (or (plist-get opscope-status :model) "model"))))
      (if (equal (plist-get opscope-status :state) "ready")
          (format "%s · %s ops" model (plist-get opscope-status :ops))
        (format "opscope: %s %s" model (plist-get opscope-status :state))))))

(defun opscope--on-status (state model ops message)
  "Record an `opscope/status' notification (STATE MODEL OPS MESSAGE)."
  (setq opscope-status (list :state state :model model :ops ops :message message))
  (when (equal state "failed")
    (message "opscope: %s: %s" model message))
  (force-mode-line-update t))

;;;; eglot

(with-eval-after-load 'eglot
  (defclass eglot-opscope (eglot-lsp-server) ()
    :documentation "The opscope language server.")

  (cl-defmethod eglot-initialization-options ((_server eglot-opscope))
    (or opscope-initialization-options (make-hash-table)))

  (cl-defmethod eglot-handle-notification
    ((_server eglot-opscope) (_method (eql opscope/status)) &key state model ops message
     &allow-other-keys)
    (opscope--on-status state model ops message)))

(defconst opscope-eglot-modes
  '(yaml-mode yaml-ts-mode json-mode js-json-mode json-ts-mode)
  "Major modes of the files opscope serves (Python ones too with `opscope-eglot-python').")

(defconst opscope-eglot-python-modes '(python-mode python-ts-mode))

(defun opscope--eglot-contact (&rest _)
  (list 'eglot-opscope opscope-program "lsp"))

(defun opscope--eglot-python-start ()
  "Connect opscope to this Python config buffer.
Python is not in `eglot-server-programs': there the entry would also answer for every other
Python file and for your own `eglot-ensure'; opscope connects here, to config buffers only."
  (remove-hook 'post-command-hook #'opscope--eglot-python-start t)
  (when (and buffer-file-name (not (bound-and-true-p eglot--managed-mode)))
    (let ((eglot-server-programs
           (cons (cons opscope-eglot-python-modes #'opscope--eglot-contact) eglot-server-programs)))
      (apply #'eglot--connect (eglot--guess-contact)))))

(defun opscope-eglot-maybe-start ()
  "Start eglot with opscope when the current buffer is a compression config."
  (when (opscope-config-buffer-p)
    (if (opscope--python-buffer-p)
        (when opscope-eglot-python
          ;; Like `eglot-ensure': after the command, once the buffer is set up; and before
          ;; your own `eglot-ensure' there, which then finds the buffer managed.
          (add-hook 'post-command-hook #'opscope--eglot-python-start nil t))
      (eglot-ensure))))

;; eglot 1.16 renamed its path-to-URI function.
(defun opscope--file-uri (file)
  (with-no-warnings
    (if (fboundp 'eglot-path-to-uri) (eglot-path-to-uri file) (eglot--path-to-uri file))))

;;;###autoload
(defun opscope-trust-project ()
  "Allow opscope to run the Python model the current config's project names.
The server asks once when a config opens (\"Trust and export\" / \"Not now\"); this trusts
later, like `opscope trust' on the command line.  Editing opscope.yaml revokes it."
  (interactive)
  (let ((server (eglot-current-server)))
    (unless server (user-error "opscope: no server for this buffer"))
    (jsonrpc-request server :workspace/executeCommand
                     (list :command "opscope.trustProject"
                           :arguments (vector (opscope--file-uri (buffer-file-name)))))
    (message "opscope: trusted; exporting the model")))

;;;###autoload
(defun opscope-eglot-setup ()
  "Use opscope for compression configs with eglot.
Registers the server for YAML/JSON modes, roots projects at opscope.yaml and starts eglot
in config buffers (other files are left alone); with `opscope-eglot-python', also in
Python buffers that use coreai-opt or PEFT."
  (require 'eglot)
  (add-to-list 'eglot-server-programs (cons opscope-eglot-modes #'opscope--eglot-contact))
  (add-hook 'project-find-functions #'opscope-project-find)
  (dolist (mode (append opscope-eglot-modes opscope-eglot-python-modes))
    (add-hook (intern (format "%s-hook" mode)) #'opscope-eglot-maybe-start)))

(provide 'opscope)
;;; opscope.el ends here
