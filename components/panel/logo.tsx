export function Logo({ className = "size-8" }: { className?: string }) {
  return (
    <span
      className={`inline-flex items-center justify-center rounded-lg bg-indigo-600 text-white shadow-sm ${className}`}
      aria-hidden="true"
    >
      <svg
        viewBox="0 0 24 24"
        fill="none"
        stroke="currentColor"
        strokeWidth="2"
        strokeLinecap="round"
        strokeLinejoin="round"
        className="size-[60%]"
      >
        <path d="M12 2 3 7v10l9 5 9-5V7l-9-5Z" />
        <path d="m3 7 9 5 9-5M12 12v10" />
      </svg>
    </span>
  );
}
