import { Notice } from "./states";

/**
 * The frame of every console form: a card with its title, an optional introduction, the fields
 * (`children`), the submit button (disabled, and labelled `busy`, while the form's request runs)
 * and, under it, what the last submit did or why it failed. Submitting runs `form.submit()`, or
 * `onSubmit` when given.
 *
 * @example
 * <FormCard title="Register an asset type" form={form} submit="Register type" busy="Registering…">
 *   <TextField id="type-name" label="Type name" {...form.field("typeName")} />
 * </FormCard>
 */
export function FormCard({
  title,
  intro,
  form,
  submit,
  busy,
  onSubmit = form.submit,
  children,
  page = false,
}: {
  title: string;
  intro?: React.ReactNode;
  /** A `useForm` result. */
  form: {
    busy: boolean;
    success: string | undefined;
    failure: string | undefined;
    submit: () => Promise<void>;
  };
  /** The submit button's label, and its label while the request runs. */
  submit: string;
  busy: string;
  onSubmit?: () => Promise<void>;
  children: React.ReactNode;
  /** The form is the whole page (sign-in): a narrower card titled with the page's `h1`. */
  page?: boolean;
}) {
  return (
    <form
      className={page ? "card signin" : "card form"}
      onSubmit={(event) => {
        event.preventDefault();
        void onSubmit();
      }}
      noValidate
    >
      {page ? <h1>{title}</h1> : <h2>{title}</h2>}
      {intro}
      {children}
      <button type="submit" className="button button-primary" disabled={form.busy}>
        {form.busy ? busy : submit}
      </button>
      {form.success !== undefined && <Notice kind="ok">{form.success}</Notice>}
      {form.failure !== undefined && <Notice kind="error">{form.failure}</Notice>}
    </form>
  );
}
