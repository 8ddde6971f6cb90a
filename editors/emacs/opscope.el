;;; opscope.el --- opscope language server for coreai-opt compression configs -*- lexical-binding: t; -*-

;; Completion, hover and diagnostics in coreai-opt compression configs (YAML/JSON), computed
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

(defconst opscope-config-root-keys
  '("quantization_config" "kmeans_palettization_config" "magnitude_pruning_config")
  "Root keys that make a YAML or JSON file a coreai-opt compression config.")

(defconst opscope-project-file "opscope.yaml"
  "The project file naming the model; its folder is the project root.")

(defvar opscope-status nil
  "The last `opscope/status' notification, a plist (:state :model :ops :message).")

(defconst opscope-python-config-regexp
  (concat "^[ \t]*\\(?:from[ \t]+coreai_opt\\(?:\\.[[:alnum:]_.]*\\)?[ \t]+import\\_>"
          "\\|import[ \t]+coreai_opt\\_>\\)"
          "\\|^[^#\n]*\\_<\\(?:Quantizer\\|KMeansPalettizer\\|MagnitudePruner\\)Config[ \t]*[.(]")
  "A Python line that imports coreai_opt or uses a config class in code (not in a comment).
The same rule as the VS Code extension's: any other Python file stays your Python server's.")

(defvar-local opscope--config-cache nil
  "(TICK . VALUE): `opscope-config-buffer-p' at buffer modification TICK.")

(defun opscope-config-buffer-p ()
  "Non-nil when the current buffer is a compression config or opscope.yaml.
A Python buffer is one when it imports coreai_opt or calls a config class (a training script)."
  (let ((tick (buffer-chars-modified-tick)))
    (if (eql (car opscope--config-cache) tick)
        (cdr opscope--config-cache)
      (cdr (setq opscope--config-cache (cons tick (opscope--config-buffer-scan)))))))

(defun opscope--config-buffer-scan ()
  (or (and buffer-file-name
           (string= (file-name-nondirectory buffer-file-name) opscope-project-file))
      (save-excursion
        (save-restriction
          (widen)
          (goto-char (point-min))
          (if (derived-mode-p 'python-mode 'python-ts-mode)
              (let ((case-fold-search nil))
                (re-search-forward opscope-python-config-regexp (min (point-max) 200000) t))
            (let ((keys (regexp-opt opscope-config-root-keys)))
              (re-search-forward
               (concat "^[\"']?" keys "[\"']?[ \t]*:\\|\"" keys "\"[ \t\n]*:")
               (min (point-max) 200000) t)))))
      nil))

(defcustom opscope-eglot-python nil
  "Non-nil: eglot serves Python training scripts that use coreai-opt with opscope.
eglot runs one server per buffer, so in those buffers (and only those: other Python files
keep your Python server) opscope then replaces your Python server.  lsp-mode
\(opscope-lsp-mode.el) runs opscope beside it instead."
  :type 'boolean
  :group 'opscope)

(defun opscope--python-buffer-p ()
  (derived-mode-p 'python-mode 'python-ts-mode))

(defun opscope-project-find (dir)
  "A project.el project rooted at the nearest opscope.yaml above DIR.
A Python buffer in DIR belongs to it only when opscope serves it (`opscope-eglot-python' and
a config): eglot runs one server per project and major mode, so the other Python files
must stay in their own project, with your Python server."
  (let ((root (locate-dominating-file dir opscope-project-file)))
    (and root
         (or (not (opscope--python-buffer-p))
             (not buffer-file-name)
             (not (file-equal-p (file-name-directory buffer-file-name) dir))
             (and opscope-eglot-python (opscope-config-buffer-p)))
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
Python buffers that use coreai-opt."
  (require 'eglot)
  (add-to-list 'eglot-server-programs (cons opscope-eglot-modes #'opscope--eglot-contact))
  (add-hook 'project-find-functions #'opscope-project-find)
  (dolist (mode (append opscope-eglot-modes opscope-eglot-python-modes))
    (add-hook (intern (format "%s-hook" mode)) #'opscope-eglot-maybe-start)))

(provide 'opscope)
;;; opscope.el ends here
