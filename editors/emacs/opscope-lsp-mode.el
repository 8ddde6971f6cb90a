;;; opscope-lsp-mode.el --- opscope for lsp-mode -*- lexical-binding: t; -*-

;;   (add-to-list 'load-path "/path/to/opscope/editors/emacs")
;;   (require 'opscope-lsp-mode)
;;   (add-hook 'yaml-mode-hook #'lsp-deferred)   ; lsp-mode picks opscope for configs
;;   (add-hook 'python-mode-hook #'lsp-deferred) ; and for scripts using coreai_opt or peft,
;;                                               ; beside your Python server (an add-on)

;;; Code:

(require 'lsp-mode)
(require 'opscope)

(defun opscope-lsp--activate-p (file-name _mode)
  "Serve FILE-NAME when it is a config opscope serves (see `opscope-config-buffer-p')."
  (or (member (file-name-nondirectory file-name) opscope-config-file-names)
      (let ((buffer (get-file-buffer file-name)))
        (and buffer (with-current-buffer buffer (opscope-config-buffer-p))))))

(lsp-register-client
 (make-lsp-client
  :new-connection (lsp-stdio-connection (lambda () (list opscope-program "lsp")))
  :activation-fn #'opscope-lsp--activate-p
  :server-id 'opscope
  ;; Runs beside yaml-language-server / json-ls / your Python server, which keep serving the rest.
  :add-on? t
  :initialization-options (lambda () opscope-initialization-options)
  :notification-handlers
  (lsp-ht ("opscope/status"
           (lambda (_workspace params)
             (opscope--on-status (gethash "state" params) (gethash "model" params)
                                 (gethash "ops" params) (gethash "message" params)))))))

(add-to-list 'lsp-language-id-configuration '("opscope\\.yaml\\'" . "yaml"))

(provide 'opscope-lsp-mode)
;;; opscope-lsp-mode.el ends here
