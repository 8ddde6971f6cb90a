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

(defun opscope-config-buffer-p ()
  "Non-nil when the current buffer is a compression config or opscope.yaml."
  (or (and buffer-file-name
           (string= (file-name-nondirectory buffer-file-name) opscope-project-file))
      (save-excursion
        (save-restriction
          (widen)
          (goto-char (point-min))
          (if (derived-mode-p 'python-mode 'python-ts-mode)
              ;; A training script: it imports coreai_opt or calls a config class.
              (re-search-forward
               (concat "^[ \t]*\\(from\\|import\\)[ \t]+coreai_opt\\|"
                       "\\(Quantizer\\|KMeansPalettizer\\|MagnitudePruner\\)Config[ \t]*(")
               (min (point-max) 200000) t)
            (let ((keys (regexp-opt opscope-config-root-keys)))
              (re-search-forward
               (concat "^[\"']?" keys "[\"']?[ \t]*:\\|\"" keys "\"[ \t\n]*:")
               (min (point-max) 200000) t)))))))

(defun opscope-project-find (dir)
  "A project.el project rooted at the nearest opscope.yaml above DIR."
  (let ((root (locate-dominating-file dir opscope-project-file)))
    (and root (cons 'opscope (file-name-as-directory (expand-file-name root))))))

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

(defcustom opscope-eglot-python nil
  "Non-nil: eglot serves Python training scripts that import coreai_opt with opscope.
eglot runs one server per buffer, so in those buffers opscope then replaces your Python
server; lsp-mode (opscope-lsp-mode.el) runs opscope beside it instead."
  :type 'boolean
  :group 'opscope)

(defconst opscope-eglot-modes
  '(yaml-mode yaml-ts-mode json-mode js-json-mode json-ts-mode)
  "Major modes of the files opscope serves.")

(defun opscope--eglot-modes ()
  (append opscope-eglot-modes (and opscope-eglot-python '(python-mode python-ts-mode))))

(defun opscope-eglot-maybe-start ()
  "Start eglot with opscope when the current buffer is a compression config."
  (when (opscope-config-buffer-p)
    (eglot-ensure)))

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
Registers the server for YAML/JSON modes (and Python ones with `opscope-eglot-python'),
roots projects at opscope.yaml and starts eglot in config buffers (other files are left
alone)."
  (require 'eglot)
  (add-to-list 'eglot-server-programs
               (cons (opscope--eglot-modes) (lambda (&rest _) (list 'eglot-opscope opscope-program "lsp"))))
  (add-hook 'project-find-functions #'opscope-project-find)
  (dolist (mode (opscope--eglot-modes))
    (add-hook (intern (format "%s-hook" mode)) #'opscope-eglot-maybe-start)))

(provide 'opscope)
;;; opscope.el ends here
