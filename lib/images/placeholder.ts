/** The placeholder replay, the TTY and tool results show for an image: its name, dimensions and type. */
export function imagePlaceholder(image: { name: string; mediaType: string; width: number; height: number }): string {
  return `[image ${image.name} ${image.width}x${image.height} ${image.mediaType}]`;
}
